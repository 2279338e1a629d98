// Which build produced a run: recorded in perf.json and printed by `dualpath --version`, so that a regression gate
// (`dualpath validate --gate`) can say which versions it compared.
#pragma once

namespace dualpath {

// "0.1.0+g<commit>[-dirty]" in a git checkout at configure time, else "0.1.0".
const char* build_version();

}  // namespace dualpath
