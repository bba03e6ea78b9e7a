// The event models p(x | y = k): Bernoulli, multinomial, categorical, Gaussian, with the hooks of
// nbcore/models (logLikelihood, statistics, paramsFrom, logPrior, uniformParams, randomParams,
// featureTerms, estimateParts, squaredDistance, logParams / logLikelihoodFrom).
//
// Data the models compute with ("Xp", made by em.js prepare):
//   csr    { format: "csr", n, v, indptr: Int32Array (n+1), indices: Int32Array (nnz), data: Float64Array (nnz) }
//          words (Bernoulli: 0/1, multinomial: counts); categorical data as its one-hot matrix
//          { ..., v: Σ_j D_j, nFeatures: V, nCategories: [D_j], offsets: [0, D_0, D_0 + D_1, …], codes }
//   dense  { format: "dense", n, v, values: Float64Array (n*v) }   (Gaussian)
// Parameters (read-only by convention; a snapshot shares them):
//   bernoulli, multinomial  { beta: Float64Array (V*K) }           β[j*K + k]
//   categorical             { theta: [Float64Array (D_j*K)], stacked: Float64Array (ΣD_j*K) }  (theta[j] views stacked)
//   gaussian                { mean: Float64Array (V*K), var: Float64Array (V*K) }
//
// Sums follow numpy's order (see equations.js). Sparse products run row by row, entry by entry,
// the order scipy's csr/csc kernels use, so a sparse X gives nbcore's numbers bit for bit up to
// the logarithms and exponentials (V8's and numpy's can differ in the last bit).
//
// One module per event model (model_bernoulli.js, model_multinomial.js, model_categorical.js,
// model_gaussian.js) and the kernels they share (model_kernels.js); this module names the models and keeps
// the exports callers import.

import { BernoulliModel } from "./model_bernoulli.js";
import { MultinomialModel } from "./model_multinomial.js";
import { CategoricalModel } from "./model_categorical.js";
import { GaussianModel } from "./model_gaussian.js";

export { csrMatmul, transposeOf, csrTMatmul } from "./model_kernels.js";
export { bernoulliLogLikelihood } from "./model_bernoulli.js";

const MODELS = {
  bernoulli: BernoulliModel,
  multinomial: MultinomialModel,
  categorical: CategoricalModel,
  gaussian: GaussianModel,
};

/** The event model called `name`, with its options (e.g. { var_floor } for "gaussian"). */
export function getModel(name, options = {}) {
  const cls = MODELS[name];
  if (!cls) throw new Error(`Unknown event model ${name}; choose one of ${Object.keys(MODELS).join(", ")}.`);
  return new cls(options);
}

export const MODEL_NAMES = Object.keys(MODELS);

// Callers ask a model's properties (matrixFormat, scoresAbsentFeatures, title) instead of comparing its
// name with a string, as nbcore's callers read its models' tags (input_dtype, accepts_sparse, …).
