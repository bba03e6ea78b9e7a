// The model's matrix from the lab's data (em.js modelMatrix): the format each model reads comes from the
// model (matrixFormat), and a matrix of another format is refused with a message naming the model.
import test from "node:test";
import assert from "node:assert/strict";
import { modelMatrix } from "../../../nblab/js/em.js";
import { MODEL_NAMES, getModel } from "../../../nblab/js/models.js";

const CSR = { format: "csr", n: 2, v: 2, indptr: Int32Array.from([0, 1, 2]), indices: Int32Array.from([0, 1]),
  data: Float64Array.from([2, 3]) };
const DENSE = { format: "dense", n: 2, v: 2, values: Float64Array.from([0.5, 0, 0, 1.5]) };
const CODES = { format: "codes", n: 2, v: 2, codes: Uint8Array.from([0, 1, 2, 0]), nCategories: [3, 2] };

test("every model names the matrix format it reads, one of the lab data's three", () => {
  for (const name of MODEL_NAMES) assert.ok(["csr", "dense", "codes"].includes(getModel(name).matrixFormat), name);
});

test("each model takes its own format as it is; codes become the one-hot matrix", () => {
  assert.equal(modelMatrix(CSR, "multinomial"), CSR);
  assert.equal(modelMatrix(CSR, "bernoulli"), CSR);
  assert.equal(modelMatrix(DENSE, "gaussian"), DENSE);
  const hot = modelMatrix(CODES, "categorical");
  assert.deepEqual([hot.format, hot.v, Array.from(hot.indices)], ["csr", 5, [0, 4, 2, 3]]);
});

test("binarize: x > 0 of a dense or a sparse matrix", () => {
  assert.deepEqual(Array.from(modelMatrix(DENSE, "bernoulli", "binarize").indices), [0, 1]);
  assert.deepEqual(Array.from(modelMatrix(CSR, "bernoulli", "binarize").data), [1, 1]);
});

test("a matrix of another format is refused with the model's name", () => {
  assert.throws(() => modelMatrix(CSR, "categorical"), { message: "The categorical model needs category codes." });
  assert.throws(() => modelMatrix(CSR, "gaussian"), { message: "The Gaussian model needs a dense matrix." });
  assert.throws(() => modelMatrix(DENSE, "multinomial"),
    { message: "The multinomial model needs a sparse (CSR) matrix." });
  assert.throws(() => modelMatrix(CSR, "bernoulli", "cube"), { message: "Unknown model input cube" });
  assert.throws(() => modelMatrix(CSR, "poisson"), /Unknown event model poisson/);
});
