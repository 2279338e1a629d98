#include "core/calibrate/fit.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "core/config/input_error.hpp"
#include "core/cost/cost_model.hpp"
#include "core/cost/cost_table.hpp"

namespace dualpath {
namespace {

double decode_tpot(const Scenario& sc, const Topology::FixedCosts& c, double batch, double context) {
  Topology t = sc.de_topology();
  t.fixed_costs = c;
  const CostModel cost(sc.model, t.gpu, EpNetwork::of(t));
  return decode_point(cost, GroupShape::of(sc.deployment.de_group_gpus, t.gpus_per_node), batch, context).step;
}

double prefill_forward(const Scenario& sc, const Topology::FixedCosts& c, double input) {
  Topology t = sc.pe_topology();
  t.fixed_costs = c;
  const CostModel cost(sc.model, t.gpu, EpNetwork::of(t));
  const auto fresh = static_cast<int64_t>(std::llround(std::max(1.0, input)));
  return prefill_point(cost, GroupShape::of(sc.deployment.pe_group_gpus, t.gpus_per_node), t.cnic_bw,
                       static_cast<double>(fresh), 0, fresh).forward;
}

// Least squares of y ~ a x + b z over the points, bounded at 0 (a coordinate that comes out negative is dropped).
void fit_two(const std::vector<double>& x, const std::vector<double>& z, const std::vector<double>& y, bool both,
             double& a, double& b) {
  double xx = 0, zz = 0, xz = 0, xy = 0, zy = 0;
  for (size_t i = 0; i < y.size(); ++i)
    xx += x[i] * x[i], zz += z[i] * z[i], xz += x[i] * z[i], xy += x[i] * y[i], zy += z[i] * y[i];
  a = b = 0;
  const double det = xx * zz - xz * xz;
  if (both && det > 1e-12 * xx * zz) {
    a = (xy * zz - zy * xz) / det;
    b = (zy * xx - xy * xz) / det;
    if (a >= 0 && b >= 0) return;
  }
  // One coordinate alone: the per-request part first (what grows with load), else the fixed part.
  const double b_only = zz > 0 ? std::max(0.0, zy / zz) : 0.0;
  const double a_only = xx > 0 ? std::max(0.0, xy / xx) : 0.0;
  double e_b = 0, e_a = 0;
  for (size_t i = 0; i < y.size(); ++i) e_b += std::pow(y[i] - b_only * z[i], 2), e_a += std::pow(y[i] - a_only * x[i], 2);
  if (!both || e_b <= e_a) a = 0, b = b_only;
  else a = a_only, b = 0;
}

std::string us_text(double s) {
  std::ostringstream o;
  o << std::setprecision(6) << s * 1e6 << " us";
  return o.str();
}

std::string pct(double model, double measured) {
  std::ostringstream o;
  o << std::showpos << std::fixed << std::setprecision(1) << 100 * (model / measured - 1) << "%";
  return o.str();
}

}  // namespace

CalibrationFit fit_calibration(const Scenario& sc, const std::vector<BenchPoint>& points) {
  if (sc.model.timing == StepTiming::Profile)
    throw InputError(sc.source_file + ": /model/timing",
                     "calibrate fits the roofline's fixed costs; this model's steps come from a measured profile, "
                     "which holds them already (use model.timing = roofline)");
  if (points.empty()) throw InputError("calibrate", "expected one or more benchmark points");
  CalibrationFit fit;
  const double de_gpus = static_cast<double>(sc.deployment.decode_nodes) * sc.de_topology().gpus_per_node;
  std::vector<double> batch, context;
  for (const BenchPoint& p : points) {
    batch.push_back(std::max(p.concurrency / de_gpus, 1e-6));
    context.push_back(p.input_len + p.output_len / 2);
  }
  const bool both = std::any_of(batch.begin(), batch.end(), [&](double b) { return std::abs(b - batch.front()) > 1e-9 * b; });
  fit.decode_layer_fitted = both;
  // Gauss-Newton on the two decode costs: the step is piecewise linear in them (the overlap's min and max), so two
  // rounds settle it.
  Topology::FixedCosts c{};
  for (int round = 0; round < 3; ++round) {
    std::vector<double> dx, dz, y;
    const double hx = 1e-5, hz = 1e-6;
    for (size_t i = 0; i < points.size(); ++i) {
      const double base = decode_tpot(sc, c, batch[i], context[i]);
      Topology::FixedCosts cx = c, cz = c;
      cx.decode_layer += hx, cz.decode_request += hz;
      dx.push_back((decode_tpot(sc, cx, batch[i], context[i]) - base) / hx);
      dz.push_back((decode_tpot(sc, cz, batch[i], context[i]) - base) / hz);
      y.push_back(points[i].tpot - base + dx.back() * c.decode_layer + dz.back() * c.decode_request);
    }
    fit_two(dx, dz, y, both, c.decode_layer, c.decode_request);
  }
  // Prefill: the lightest point's TTFT is one forward.
  size_t lightest = 0;
  for (size_t i = 1; i < points.size(); ++i)
    if (points[i].concurrency < points[lightest].concurrency) lightest = i;
  const double in = points[lightest].input_len;
  const double f0 = prefill_forward(sc, c, in);
  Topology::FixedCosts cp = c;
  cp.prefill_layer = 1e-3;
  const double slope = (prefill_forward(sc, cp, in) - f0) / 1e-3;
  c.prefill_layer = slope > 0 ? std::max(0.0, (points[lightest].ttft - f0) / slope) : 0.0;
  fit.costs = c;
  for (size_t i = 0; i < points.size(); ++i) {
    PointFit pf;
    pf.point = points[i];
    pf.batch_per_gpu = batch[i];
    pf.context = context[i];
    pf.tpot_model = decode_tpot(sc, c, batch[i], context[i]);
    pf.ttft_model = prefill_forward(sc, c, points[i].input_len);
    pf.fits_prefill = i == lightest;
    fit.points.push_back(pf);
  }
  return fit;
}

nlohmann::json calibration_document(const Scenario& sc, const CalibrationFit& fit, const std::string& name,
                                    const std::vector<std::string>& files) {
  std::string file_list;
  for (const auto& f : files) file_list += (file_list.empty() ? "" : ", ") + f;
  nlohmann::json doc = {
      {"calibration", 1},
      {"name", name},
      {"label", "FITTED by dualpath calibrate to " + file_list + " (" + sc.model.name + " on " + sc.de_topology().name + ")"},
      {"description", "Fixed costs fitted to serving-benchmark points of " + sc.model.name + " on " +
                          sc.topology.name + " (prefill groups of " + std::to_string(sc.deployment.pe_group_gpus) +
                          " GPUs, decode " + std::to_string(sc.deployment.decode_nodes) + " nodes in groups of " +
                          std::to_string(sc.deployment.de_group_gpus) + "), base calibration " + sc.calibration.name +
                          " (docs/calibration.md)."},
      {"set", nlohmann::json::object()},
      {"parameters", nlohmann::json::object()}};
  nlohmann::json tpot_points = nlohmann::json::array(), tpot_res = nlohmann::json::object();
  nlohmann::json ttft_points = nlohmann::json::array(), ttft_res = nlohmann::json::object();
  for (const PointFit& p : fit.points) {
    std::ostringstream d;
    d << p.point.where << ": TPOT " << std::fixed << std::setprecision(2) << p.point.tpot * 1e3 << " ms at "
      << std::setprecision(1) << p.point.concurrency << " in flight (" << std::setprecision(3) << p.batch_per_gpu
      << " per decode GPU, context " << std::setprecision(0) << p.context << ")";
    tpot_points.push_back(d.str());
    tpot_res[p.point.where] = pct(p.tpot_model, p.point.tpot);
    if (p.fits_prefill) {
      std::ostringstream t;
      t << p.point.where << ": TTFT " << std::fixed << std::setprecision(2) << p.point.ttft * 1e3 << " ms, input "
        << std::setprecision(0) << p.point.input_len << " tokens (the lightest load)";
      ttft_points.push_back(t.str());
    }
    ttft_res[p.point.where] = pct(p.ttft_model, p.point.ttft);
  }
  auto put = [&](const std::string& key, const std::string& value, const nlohmann::json& fitted, const nlohmann::json& res,
                 const std::string& method) {
    doc["set"][key] = value;
    doc["parameters"][key] = {{"fitted_to", fitted}, {"residuals", res}, {"method", method}};
  };
  put("topology.fixed_costs.decode_request", us_text(fit.costs.decode_request), tpot_points, tpot_res,
      "least squares on TPOT, bounded at 0");
  put("topology.fixed_costs.decode_layer", us_text(fit.costs.decode_layer), tpot_points, tpot_res,
      fit.decode_layer_fitted ? "least squares on TPOT, bounded at 0"
                              : "not fitted: the points share one batch size, which cannot tell a fixed part from "
                                "a per-request one; 0");
  put("topology.fixed_costs.prefill_layer", us_text(fit.costs.prefill_layer), ttft_points, ttft_res,
      "the lightest point's TTFT as one forward of its input (the residuals of the others include queueing)");
  if (sc.topology.storage.client_read_efficiency != 1)
    doc["set"]["topology.storage.client_read_efficiency"] = sc.topology.storage.client_read_efficiency,
    doc["parameters"]["topology.storage.client_read_efficiency"] = {
        {"fitted_to", {"the base calibration " + sc.calibration.name + " (a serving benchmark reads no KV from storage)"}},
        {"method", "kept from the base calibration"}};
  return doc;
}

}  // namespace dualpath
