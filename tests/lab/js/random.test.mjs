// random.js is numpy's default_rng bit for bit: the numbers below were drawn by numpy
// (tests/lab/make_numpy_values.py wrote numpy_values.mjs).
import test from "node:test";
import assert from "node:assert/strict";
import { PCG64, defaultRng, seedSequenceState } from "../../../nblab/js/random.js";
import NP from "./numpy_values.mjs";

test("next_uint64 after SeedSequence seeding, small and huge seeds", () => {
  for (const [seed, want] of Object.entries(NP.raw64)) {
    const bg = new PCG64(BigInt(seed));
    assert.deepEqual(want.map(() => String(bg.nextUint64())), want, `seed ${seed}`);
  }
});

test("SeedSequence(0).generate_state(4, uint32)", () => {
  // numpy: np.random.SeedSequence(0).generate_state(4)
  assert.deepEqual(Array.from(seedSequenceState(0, 4)), [2968811710, 3677149159, 745650761, 2884920346]);
});

test("Generator.uniform(0.01, 0.99, size) for seeds 0..49", () => {
  NP.uniform.forEach((want, seed) => assert.deepEqual(Array.from(defaultRng(seed).uniform(0.01, 0.99, want.length)), want));
});

test("Generator.random(size)", () => {
  NP.random.forEach((want, seed) => assert.deepEqual(Array.from(defaultRng(seed).random(want.length)), want));
});

test("Generator.permutation(np.arange(10))[:3] for every seed 0..9999", () => {
  const ten = Int32Array.from({ length: 10 }, (_, i) => i);
  let bad = [];
  for (let seed = 0; seed < 10000; seed++) {
    const p = defaultRng(seed).permutation(ten);
    const got = `${p[0]}${p[1]}${p[2]}`;
    if (got !== NP.perm10.slice(3 * seed, 3 * seed + 3)) bad.push(seed);
  }
  assert.deepEqual(bad, []);
});

test("Generator.permutation of long arrays (the 32-bit buffer across many draws)", () => {
  for (const [seed, want] of Object.entries(NP.perm_long)) {
    const n = { 0: 5574, 1: 5574, 7: 65539, 9999: 1797, 3: 2 }[seed];
    const p = defaultRng(Number(seed)).permutation(Int32Array.from({ length: n }, (_, i) => i));
    assert.deepEqual(Array.from(p.slice(0, want.length)), want, `seed ${seed}`);
  }
});

test("Generator.choice(n, k, replace=False): Floyd's algorithm and the tail shuffle", () => {
  for (const [seed, n, k, want] of NP.choice) assert.deepEqual(defaultRng(seed).choiceNoReplace(n, k), want, `${seed} ${n} ${k}`);
});

test("Generator.integers(0, n, size)", () => {
  for (const [seed, n, want] of NP.integers) assert.deepEqual(defaultRng(seed).integers(n, want.length), want, `${seed} ${n}`);
});

test("uniform, then choice, then uniform on one generator", () => {
  const rng = defaultRng(NP.mixed.seed);
  assert.deepEqual(Array.from(rng.uniform(0.01, 0.99, 3)), NP.mixed.uniform);
  assert.deepEqual(rng.choiceNoReplace(150, 3), NP.mixed.choice);
  assert.deepEqual(Array.from(rng.uniform(0.01, 0.99, 4)), NP.mixed.after);
});
