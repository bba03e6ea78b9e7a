// The two stop rules' numbers for the step t − 1 → t: the relative change of the objective (the tolerance's
// rule) and ‖θ_t − θ_{t−1}‖² counted both ways (each parameter once, as nbcore's snapshot.delta; the course
// session's sum over both values of each binary feature), beside the rules in force.
import { h, section, table, pyExp, pyFixed } from "./common.js";
import { squaredChange } from "../equations.js";

/** Python's f"{v:.{p}g}" ("0.0001234", "1.234e-05", "42"). Fixed notation rounds an exact tie to even as
 * Python does (pyFixed); e-notation rounds it up (toExponential), which only an exact tie of ≥ 10⁴ meets. */
//: the panel's name where the page speaks of it (a note when it cannot start)
export const TITLE = "The stop rules";

export function gfmt(v, p = 4) {
  v = Number(v);
  if (!Number.isFinite(v)) return Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
  if (v === 0) return "0";
  const e = Math.floor(Math.log10(Math.abs(Number(v.toPrecision(p)))));
  if (e < -4 || e >= p) return pyExp(v, p - 1).replace(/\.?0+e/, "e");
  const s = pyFixed(v, Math.max(0, p - 1 - e));
  return s.includes(".") ? s.replace(/\.?0+$/, "") : s;
}

/** The step's numbers: { rel, parameters, bothValues } (rel NaN when an objective is not finite or 0). */
export function stepNumbers(model, a, b) {
  const rel = a.objective !== 0 && Number.isFinite(a.objective) && Number.isFinite(b.objective)
    ? Math.abs(b.objective - a.objective) / Math.abs(a.objective) : NaN;
  return { rel, parameters: squaredChange(model, b.alpha, b.params, a.alpha, a.params, "parameters"),
    bothValues: squaredChange(model, b.alpha, b.params, a.alpha, a.params, "both_values") };
}

/** The rows the panel shows for iteration t of `run` (null at t = 0). */
export function rows(run, t) {
  if (t < 1) return null;
  const n = stepNumbers(run.model, run.history[t - 1], run.history[t]);
  const s = run.settings;
  return [
    [`|ΔL| / |L| at t=${t}`, Number.isNaN(n.rel) ? "—" : pyExp(n.rel, 2), s.tol === null || s.tol === undefined ? "off" : `stops when ≤ ${pyExp(s.tol, 0)}`],
    ["‖Δθ‖², each parameter once", gfmt(n.parameters),
      s.thetaTol === null || s.thetaTol === undefined ? "off" : `stops when < ${pyExp(s.thetaTol, 0)}${s.thetaNorm === "parameters" ? "" : " (counted the other way)"}`],
    ["‖Δθ‖², the course session's sum", gfmt(n.bothValues),
      s.thetaTol !== null && s.thetaTol !== undefined && s.thetaNorm === "both_values" ? `stops when < ${pyExp(s.thetaTol, 0)}` : "—"],
  ];
}

export function mount(el) {
  return {
    update(view) {
      // the panel keeps its place (a hidden panel would never be seen again by the page's visibility watch)
      const { body } = section(el, "The stop rules at this iteration", "nbl-stop-rules");
      const r = rows(view.run, view.t);
      if (!r) {
        body.append(h("p", { class: "nbl-caption", text: "Each step's numbers for both stop rules appear here from t = 1." }));
        return;
      }
      body.append(table({ caption: `The step from t = ${view.t - 1} to t = ${view.t}`, head: ["number", "value", "rule in force"], rows: r }),
        h("p", { class: "nbl-caption", text: "EM stops at the first rule that holds: the relative change of the objective "
          + "(the tolerance) or the course session's ‖θ_t − θ_t−1‖² < ε. The course session's sum counts both values of "
          + "each binary feature, so a Bernoulli β's change counts twice." }));
    },
  };
}
