// numpy's np.random.default_rng(seed), bit for bit: SeedSequence → PCG64 (XSL-RR 128/64) → Generator.
//
// Only what the lab draws is ported: next_uint64 / next_uint32 (with numpy's 32-bit buffering),
// next_double, Generator.uniform(low, high, size), Generator.permutation of a 1-D array (Fisher–Yates
// with random_interval, as numpy's _shuffle_raw), Generator.choice(n, size, replace=false) (Floyd's
// algorithm then a shuffle, as numpy's choice for small samples; the tail shuffle for large ones).
//
// The 128-bit LCG state is held in eight 16-bit limbs (plain numbers), so a step is 36 exact
// products and no BigInt: a draw costs ~50 ns.

const MASK32 = 0xffffffff;

// SeedSequence constants (numpy/random/bit_generator.pyx)
const INIT_A = 0x43b0d7e5;
const MULT_A = 0x931e8875;
const INIT_B = 0x8b51f9dd;
const MULT_B = 0x58f38ded;
const MIX_MULT_L = 0xca01f9dd;
const MIX_MULT_R = 0x4973f715;
const XSHIFT = 16;
const POOL_SIZE = 4;

/** uint32 product mod 2^32. */
function mul32(a, b) {
  return Math.imul(a, b) >>> 0;
}

/**
 * The uint32 words of a non-negative integer seed, least significant first (numpy's
 * _coerce_to_uint32_array for a Python int; 0 → [0]).
 * @param {number|bigint} seed
 * @returns {number[]}
 */
export function seedWords(seed) {
  let s = BigInt(seed);
  if (s < 0n) throw new RangeError("SeedSequence needs a non-negative seed");
  const out = [];
  do {
    out.push(Number(s & 0xffffffffn));
    s >>= 32n;
  } while (s > 0n);
  return out;
}

/**
 * numpy's SeedSequence(seed).generate_state(nWords, uint32): the pool mixed from the seed's entropy,
 * then nWords uint32 words.
 * @param {number|bigint} seed  non-negative integer
 * @param {number} nWords
 * @returns {Uint32Array} (nWords,)
 */
export function seedSequenceState(seed, nWords) {
  const entropy = seedWords(seed);
  const pool = new Array(POOL_SIZE).fill(0);
  let hashConst = INIT_A;
  const hashmix = (value) => {
    value = (value ^ hashConst) >>> 0;
    hashConst = mul32(hashConst, MULT_A);
    value = mul32(value, hashConst);
    value = (value ^ (value >>> XSHIFT)) >>> 0;
    return value;
  };
  const mix = (x, y) => {
    let result = (mul32(MIX_MULT_L, x) - mul32(MIX_MULT_R, y)) >>> 0;
    result = (result ^ (result >>> XSHIFT)) >>> 0;
    return result;
  };
  for (let i = 0; i < POOL_SIZE; i++) pool[i] = hashmix(i < entropy.length ? entropy[i] : 0);
  for (let src = 0; src < POOL_SIZE; src++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) {
      if (src !== dst) pool[dst] = mix(pool[dst], hashmix(pool[src]));
    }
  }
  for (let src = POOL_SIZE; src < entropy.length; src++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) pool[dst] = mix(pool[dst], hashmix(entropy[src]));
  }
  const out = new Uint32Array(nWords);
  let hc = INIT_B;
  for (let i = 0; i < nWords; i++) {
    let v = pool[i % POOL_SIZE];
    v = (v ^ hc) >>> 0;
    hc = mul32(hc, MULT_B);
    v = mul32(v, hc);
    v = (v ^ (v >>> XSHIFT)) >>> 0;
    out[i] = v;
  }
  return out;
}

// PCG64's multiplier 0x2360ED051FC65DA44385DF649FCCF645 in 16-bit limbs, least significant first.
const MULT = [0xf645, 0x9fcc, 0xdf64, 0x4385, 0x5da4, 0x1fc6, 0xed05, 0x2360];

/** 16-bit limbs (8 of them, little-endian) of the 128-bit number hi64:lo64 given as four uint32 words. */
function limbsFromWords(w3, w2, w1, w0) {
  return [w0 & 0xffff, w0 >>> 16, w1 & 0xffff, w1 >>> 16, w2 & 0xffff, w2 >>> 16, w3 & 0xffff, w3 >>> 16];
}

/**
 * PCG64 (numpy's default bit generator): a 128-bit LCG with the XSL-RR output function.
 * Seeded like numpy: SeedSequence(seed).generate_state(4, uint64) → initstate, initseq.
 */
export class PCG64 {
  /** @param {number|bigint} seed non-negative integer */
  constructor(seed) {
    const w = seedSequenceState(seed, 8); // 4 uint64 = 8 uint32, little-endian pairs
    // uint64 words: s0 = w1:w0, s1 = w3:w2, s2 = w5:w4, s3 = w7:w6
    // initstate = s0 << 64 | s1 ; initseq = s2 << 64 | s3
    const initstate = limbsFromWords(w[1], w[0], w[3], w[2]);
    const initseq = limbsFromWords(w[5], w[4], w[7], w[6]);
    // inc = initseq << 1 | 1
    const inc = new Array(8);
    let carry = 1;
    for (let i = 0; i < 8; i++) {
      const v = initseq[i] * 2 + carry;
      inc[i] = v & 0xffff;
      carry = v >>> 16;
    }
    this.inc = inc;
    this.s = new Float64Array(8); // state limbs (numbers < 2^16)
    this.t = new Float64Array(8); // scratch
    this._step();
    // state += initstate
    carry = 0;
    for (let i = 0; i < 8; i++) {
      const v = this.s[i] + initstate[i] + carry;
      this.s[i] = v % 65536;
      carry = Math.floor(v / 65536);
    }
    this._step();
    this.hasUint32 = false;
    this.uinteger = 0;
    this.hi = 0; // the last next64's high and low uint32 words
    this.lo = 0;
  }

  /** state = state * MULT + inc (mod 2^128). */
  _step() {
    const s = this.s, t = this.t, inc = this.inc;
    let carry = 0;
    for (let i = 0; i < 8; i++) {
      let acc = carry + inc[i];
      for (let a = 0; a <= i; a++) acc += s[a] * MULT[i - a]; // each product < 2^32, sum < 2^36
      t[i] = acc % 65536;
      carry = Math.floor(acc / 65536);
    }
    for (let i = 0; i < 8; i++) s[i] = t[i];
  }

  /** One uint64 as this.hi, this.lo (uint32 each): step, then XSL-RR of the new state. */
  next64() {
    this._step();
    const s = this.s;
    // hi64 ^ lo64 as two uint32 words
    let xhi = ((s[7] * 65536 + s[6]) ^ (s[3] * 65536 + s[2])) >>> 0;
    let xlo = ((s[5] * 65536 + s[4]) ^ (s[1] * 65536 + s[0])) >>> 0;
    const rot = s[7] >>> 10; // state >> 122
    if (rot === 0) {
      this.hi = xhi; this.lo = xlo;
    } else if (rot < 32) {
      this.hi = ((xhi >>> rot) | (xlo << (32 - rot))) >>> 0;
      this.lo = ((xlo >>> rot) | (xhi << (32 - rot))) >>> 0;
    } else if (rot === 32) {
      this.hi = xlo; this.lo = xhi;
    } else {
      const r = rot - 32;
      this.hi = ((xlo >>> r) | (xhi << (32 - r))) >>> 0;
      this.lo = ((xhi >>> r) | (xlo << (32 - r))) >>> 0;
    }
  }

  /** next_uint64 as a BigInt (tests). */
  nextUint64() {
    this.next64();
    return (BigInt(this.hi) << 32n) | BigInt(this.lo);
  }

  /** next_uint32: the low word of a fresh uint64, its high word kept for the next call (numpy's buffer). */
  nextUint32() {
    if (this.hasUint32) {
      this.hasUint32 = false;
      return this.uinteger;
    }
    this.next64();
    this.hasUint32 = true;
    this.uinteger = this.hi;
    return this.lo;
  }

  /** next_double: (next_uint64 >> 11) · 2^-53, in [0, 1). */
  nextDouble() {
    this.next64();
    return (this.hi * 2097152 + (this.lo >>> 11)) * 1.1102230246251565e-16;
  }
}

/** numpy's random_interval(max): a uniform integer in [0, max] by masked rejection (max < 2^32 here). */
function randomInterval(bg, max) {
  if (max === 0) return 0;
  if (max > MASK32) throw new RangeError("randomInterval: max ≥ 2^32 is not ported");
  let mask = max;
  mask |= mask >>> 1; mask |= mask >>> 2; mask |= mask >>> 4; mask |= mask >>> 8; mask |= mask >>> 16;
  mask >>>= 0;
  let value;
  while ((value = ((bg.nextUint32() & mask) >>> 0)) > max);
  return value;
}

/** numpy's buffered_bounded_lemire_uint32 without a buffer: uniform in [0, rng] (rng < 2^32 − 1). */
function lemireUint32(bg, rng) {
  const rngExcl = BigInt(rng + 1);
  let m = BigInt(bg.nextUint32()) * rngExcl;
  let leftover = Number(m & 0xffffffffn);
  if (leftover < rng + 1) {
    const threshold = (MASK32 - rng) % (rng + 1);
    while (leftover < threshold) {
      m = BigInt(bg.nextUint32()) * rngExcl;
      leftover = Number(m & 0xffffffffn);
    }
  }
  return Number(m >> 32n);
}

/** numpy's random_bounded_uint64(off = 0, rng, use_masked = false) for rng < 2^32. */
function boundedUint64(bg, rng) {
  if (rng === 0) return 0;
  if (rng > MASK32) throw new RangeError("bounded draws above 2^32 are not ported");
  if (rng === MASK32) return bg.nextUint32();
  return lemireUint32(bg, rng);
}

/** Fisher–Yates in place on arr[0..n) as numpy's _shuffle_raw(n, first): j = random_interval(i). */
function shuffleRaw(bg, arr, n, first) {
  for (let i = n - 1; i >= first; i--) {
    const j = randomInterval(bg, i);
    const tmp = arr[j];
    arr[j] = arr[i];
    arr[i] = tmp;
  }
}

/** Fisher–Yates in place as numpy's _shuffle_int(n, first) (choice's shuffle): j = random_bounded_uint64(0, i). */
function shuffleInt(bg, arr, n, first) {
  for (let i = n - 1; i >= first; i--) {
    const j = boundedUint64(bg, i);
    const tmp = arr[j];
    arr[j] = arr[i];
    arr[i] = tmp;
  }
}

/** numpy's Generator over PCG64: the draws the lab needs, in numpy's order. */
export class Generator {
  /** @param {PCG64} bitGenerator */
  constructor(bitGenerator) {
    this.bg = bitGenerator;
  }

  /**
   * Generator.uniform(low, high, size): low + (high − low) · next_double, C order.
   * @param {number} low
   * @param {number} high
   * @param {number} size  total number of draws (a (V, K) draw is V·K of them, row by row)
   * @returns {Float64Array} (size,)
   */
  uniform(low, high, size) {
    const range = high - low;
    const out = new Float64Array(size);
    for (let i = 0; i < size; i++) out[i] = low + range * this.bg.nextDouble();
    return out;
  }

  /** Generator.random(size): next_double draws. */
  random(size) {
    const out = new Float64Array(size);
    for (let i = 0; i < size; i++) out[i] = this.bg.nextDouble();
    return out;
  }

  /**
   * Generator.permutation(x) of a 1-D array (a shuffled copy), as numpy's shuffle.
   * @param {ArrayLike<number>} x
   * @returns {Array|TypedArray} a copy of the same kind, shuffled
   */
  permutation(x) {
    const arr = typeof x === "number" ? Float64Array.from({ length: x }, (_, i) => i) : x.slice();
    if (arr.length > 1) shuffleRaw(this.bg, arr, arr.length, 1);
    return arr;
  }

  /**
   * Generator.choice(n, size, replace = false) for an integer population n (indices 0..n−1):
   * Floyd's algorithm and a shuffle, or the tail shuffle when n > 10000 and size > n // 50.
   * @returns {number[]} (size,)
   */
  choiceNoReplace(n, size) {
    if (size > n) throw new RangeError("Cannot take a larger sample than population when replace is False");
    const bg = this.bg;
    if (n > 10000 && size > Math.floor(n / 50)) {
      const idx = Float64Array.from({ length: n }, (_, i) => i);
      shuffleInt(bg, idx, n, Math.max(n - size, 1));
      return Array.from(idx.subarray(n - size));
    }
    const idx = new Array(size);
    let setSize = Math.floor(1.2 * size);
    // _gen_mask: the smallest all-ones mask ≥ setSize
    let mask = setSize;
    mask |= mask >>> 1; mask |= mask >>> 2; mask |= mask >>> 4; mask |= mask >>> 8; mask |= mask >>> 16;
    mask >>>= 0;
    setSize = mask + 1;
    const hash = new Float64Array(setSize).fill(-1);
    for (let j = n - size; j < n; j++) {
      const val = boundedUint64(bg, j);
      let loc = val & mask;
      while (hash[loc] !== -1 && hash[loc] !== val) loc = (loc + 1) & mask;
      if (hash[loc] === -1) {
        hash[loc] = val;
        idx[j - n + size] = val;
      } else {
        loc = j & mask;
        while (hash[loc] !== -1) loc = (loc + 1) & mask;
        hash[loc] = j;
        idx[j - n + size] = j;
      }
    }
    shuffleInt(bg, idx, size, 1);
    return idx;
  }

  /**
   * Generator.integers(0, n, size) for n ≤ 2^32 (int64 draws: Lemire's method on next_uint32).
   * @returns {number[]} (size,)
   */
  integers(n, size) {
    const out = new Array(size);
    for (let i = 0; i < size; i++) out[i] = boundedUint64(this.bg, n - 1);
    return out;
  }
}

/**
 * np.random.default_rng(seed).
 * @param {number|bigint} seed non-negative integer
 * @returns {Generator}
 */
export function defaultRng(seed) {
  return new Generator(new PCG64(seed));
}
