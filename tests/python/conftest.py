"""pytest set-up for the dualpath package's tests (tests/python/): the package comes from the build tree given by
DUALPATH_PYTHONPATH (ctest sets it: build/<preset>/python), or from Python's path once installed."""
import os
import sys

import pytest

if os.environ.get("DUALPATH_PYTHONPATH"):
    sys.path.insert(0, os.environ["DUALPATH_PYTHONPATH"])

import dualpath  # noqa: E402


@pytest.fixture(scope="session")
def data():
    """The repository's bundled files (scenarios/, models/, topologies/, traces/, tests/traces/)."""
    return dualpath.DATA_DIR


@pytest.fixture(scope="session")
def default_scenario(data):
    return os.path.join(data, "scenarios", "default.json")
