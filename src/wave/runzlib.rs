//! A zlib stream (RFC 1950 around an RFC 1951 deflate stream) written from
//! runs of equal bytes, without making the bytes: the frame of an FST
//! value-change block, one character per bit of every signal, which for a
//! large network is billions of characters in a few long runs of `0` and
//! `x` (the reachability strings and destination sets as wide as the
//! network has nodes).
//!
//! Why not a compressor crate (miniz_oxide packed the frames before,
//! zlib-rs and libdeflate would do the same): each reads every byte it
//! packs, so the frame's characters had to be made and read, 4 G of them a
//! block at 4,096 switches, which was most of a traced run's time
//! (docs/performance-log.md, "A large network's frame packed from its runs").
//! Here a run of `n` equal bytes costs its one literal and `n / 258`
//! matches of length 258 at distance 1, the same few bits each, written
//! as many at a time as 32 bits hold, and its Adler-32 is taken in closed
//! form.
//!
//! Each block carries its own Huffman codes (RFC 1951 section 3.2.7),
//! built from the block's counts and limited to the format's lengths; the
//! stream is complete and self-contained, so any inflater reads it
//! (GTKWave's `fstapi` through zlib, the `fst-reader` crate and wellen
//! through miniz_oxide).

/// Adler-32's modulus.
const ADLER: u64 = 65521;
/// The longest match deflate encodes.
const MAX_MATCH: u64 = 258;
/// Token entries a block collects before it is written (a token entry is
/// one symbol, or one repeated any number of times).
const BLOCK_TOKENS: usize = 1 << 14;
/// Symbols of the literal/length alphabet (literals, end of block, lengths).
const LITLEN: usize = 286;
/// Symbols of the distance alphabet.
const DIST: usize = 30;
/// The end-of-block symbol.
const END: usize = 256;
/// The first length code, and the lengths it and the codes after it
/// start at, with their extra bits (RFC 1951 section 3.2.5).
const FIRST_LEN: u16 = 257;
const LEN_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LEN_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
/// The order in which a dynamic block lists the code-length code's lengths.
const CL_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// One symbol of a block, `count` times in a row: a literal byte, or a
/// length code (with its extra bits) whose distance is always 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Token {
    sym: u16,
    extra: u16,
    extra_bits: u8,
    count: u64,
}

/// A zlib stream being written into a vector from runs of bytes
/// ([`push`](Self::push)) and from bytes as they are
/// ([`push_bytes`](Self::push_bytes)); [`finish`](Self::finish) ends it.
pub(crate) struct RunZlib<'a> {
    out: &'a mut Vec<u8>,
    /// Bits not yet whole bytes, the first in the lowest bit.
    acc: u64,
    bits: u32,
    tokens: Vec<Token>,
    lit: [u64; LITLEN],
    dist: [u64; DIST],
    /// Adler-32 of the bytes so far, its two sums.
    a: u64,
    b: u64,
    /// The last byte made into tokens: a match at distance 1 repeats it.
    last: Option<u8>,
    /// A run not yet made into tokens (runs of one byte are joined first).
    run: (u8, u64),
}

impl<'a> RunZlib<'a> {
    /// A stream appended to `out`, starting with the zlib header (deflate,
    /// a 32 KB window, the fastest level's mark).
    pub(crate) fn new(out: &'a mut Vec<u8>) -> Self {
        out.extend_from_slice(&[0x78, 0x01]);
        RunZlib {
            out,
            acc: 0,
            bits: 0,
            tokens: Vec::new(),
            lit: [0; LITLEN],
            dist: [0; DIST],
            a: 1,
            b: 0,
            last: None,
            run: (0, 0),
        }
    }

    /// Appends `n` copies of byte `c`.
    #[inline]
    pub(crate) fn push(&mut self, c: u8, n: u64) {
        if self.run.0 == c {
            self.run.1 += n;
        } else {
            self.take_run();
            self.run = (c, n);
        }
    }

    /// Appends `bytes`.
    pub(crate) fn push_bytes(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            let n = bytes[i..].iter().take_while(|&&x| x == c).count();
            self.push(c, n as u64);
            i += n;
        }
    }

    /// Ends the stream: the last block, then the Adler-32 of every byte.
    pub(crate) fn finish(mut self) {
        self.take_run();
        self.block(true);
        if self.bits > 0 {
            let n = self.bits.div_ceil(8) as usize;
            self.out.extend_from_slice(&self.acc.to_le_bytes()[..n]);
        }
        let adler = (self.b << 16 | self.a) as u32;
        self.out.extend_from_slice(&adler.to_be_bytes());
    }

    /// Makes the pending run into tokens: a literal (unless the byte before
    /// is the same), then matches at distance 1.
    fn take_run(&mut self) {
        let (c, mut n) = std::mem::take(&mut self.run);
        if n == 0 {
            return;
        }
        self.adler_run(c, n);
        if self.last != Some(c) {
            self.token(c as u16, 0, 0, 1);
            self.last = Some(c);
            n -= 1;
        }
        if n >= MAX_MATCH {
            self.length(MAX_MATCH, n / MAX_MATCH);
            n %= MAX_MATCH;
        }
        if n >= 3 {
            self.length(n, 1);
        } else if n > 0 {
            self.token(c as u16, 0, 0, n);
        }
    }

    /// Adds `n` copies of `c` to the Adler-32 sums: each byte adds `c` to
    /// the first sum and the first sum to the second, so `n` of them add
    /// `n c` and `n a + c n (n + 1) / 2`.
    fn adler_run(&mut self, c: u8, n: u64) {
        let n = n as u128;
        let (m, c) = (ADLER as u128, c as u128);
        let (a, b) = (self.a as u128, self.b as u128);
        let tri = (n * (n + 1) / 2) % m;
        self.b = ((b + (n % m) * a + c * tri) % m) as u64;
        self.a = ((a + (n % m) * c) % m) as u64;
    }

    /// A match of `len` (3 to 258) at distance 1, `count` times.
    fn length(&mut self, len: u64, count: u64) {
        let i = LEN_BASE.partition_point(|&b| b as u64 <= len) - 1;
        let extra = (len - LEN_BASE[i] as u64) as u16;
        self.token(FIRST_LEN + i as u16, extra, LEN_EXTRA[i], count);
        self.dist[0] += count;
    }

    fn token(&mut self, sym: u16, extra: u16, extra_bits: u8, count: u64) {
        self.lit[sym as usize] += count;
        if let Some(t) = self.tokens.last_mut()
            && t.sym == sym
            && t.extra == extra
        {
            t.count += count;
            return;
        }
        if self.tokens.len() == BLOCK_TOKENS {
            // The counts include the token being added: it opens the next
            // block, so it leaves this one's.
            self.lit[sym as usize] -= count;
            self.block(false);
            self.lit[sym as usize] += count;
        }
        self.tokens.push(Token {
            sym,
            extra,
            extra_bits,
            count,
        });
    }

    /// Writes `n` (at most 32) bits of `v`, the lowest first.
    #[inline]
    fn put(&mut self, v: u64, n: u32) {
        debug_assert!(n <= 32 && self.bits < 32);
        self.acc |= v << self.bits;
        self.bits += n;
        if self.bits >= 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.bits -= 32;
        }
    }

    /// Writes the `n` (at most 32) bits of `v` `count` times: as many
    /// copies at a time as 32 bits hold (a run's matches, millions of one
    /// pattern of a few bits, are written 16 at a time).
    fn repeat(&mut self, v: u64, n: u32, mut count: u64) {
        let k = (32 / n) as u64;
        if k > 1 && count >= 2 * k {
            let pattern = (0..k).fold(0, |p, i| p | v << (i as u32 * n));
            for _ in 0..count / k {
                self.put(pattern, k as u32 * n);
            }
            count %= k;
        }
        for _ in 0..count {
            self.put(v, n);
        }
    }

    /// Writes the tokens collected as a block with Huffman codes of their
    /// own, and starts the next block's counts. Distances are always 1
    /// (code 0), but a complete code needs two symbols: the distance code
    /// 1 is given a length too, and never used.
    fn block(&mut self, last: bool) {
        self.lit[END] += 1;
        let mut dist = self.dist;
        if dist[0] == 0 {
            dist[0] = 1;
        }
        dist[1] = dist[1].max(1);
        let lit_len = code_lengths(&self.lit, 15);
        let dist_len = code_lengths(&dist, 15);
        let lit_code = canonical(&lit_len);
        let dist_code = canonical(&dist_len);
        let hlit = (lit_len.iter().rposition(|&l| l != 0).unwrap_or(0) + 1).max(257);
        let hdist = dist_len.iter().rposition(|&l| l != 0).unwrap_or(0) + 1;
        // The two lists of lengths as one, run-length coded (RFC 1951
        // section 3.2.7): (symbol, extra bits' value, their count).
        let lens: Vec<u8> = lit_len[..hlit]
            .iter()
            .chain(&dist_len[..hdist])
            .copied()
            .collect();
        let rle = run_lengths(&lens);
        let mut cl_freq = [0u64; 19];
        for &(s, _, _) in &rle {
            cl_freq[s as usize] += 1;
        }
        let cl_len = code_lengths(&cl_freq, 7);
        let cl_code = canonical(&cl_len);
        let hclen = (CL_ORDER.iter().rposition(|&s| cl_len[s] != 0).unwrap_or(0) + 1).max(4);
        self.put(last as u64, 1);
        self.put(2, 2);
        self.put((hlit - 257) as u64, 5);
        self.put((hdist - 1) as u64, 5);
        self.put((hclen - 4) as u64, 4);
        for &s in &CL_ORDER[..hclen] {
            self.put(cl_len[s] as u64, 3);
        }
        for &(s, v, n) in &rle {
            self.put(cl_code[s as usize] as u64, cl_len[s as usize] as u32);
            self.put(v as u64, n as u32);
        }
        let tokens = std::mem::take(&mut self.tokens);
        let (d_code, d_len) = (dist_code[0] as u64, dist_len[0] as u32);
        for t in &tokens {
            let s = t.sym as usize;
            let (code, len) = (lit_code[s] as u64, lit_len[s] as u32);
            if s < END {
                self.repeat(code, len, t.count);
            } else {
                // The length's code and extra bits, then the distance's
                // code: at most 15 + 5 and 15 bits.
                let head = code | (t.extra as u64) << len;
                let head_len = len + t.extra_bits as u32;
                if head_len + d_len <= 32 {
                    self.repeat(head | d_code << head_len, head_len + d_len, t.count);
                } else {
                    for _ in 0..t.count {
                        self.put(head, head_len);
                        self.put(d_code, d_len);
                    }
                }
            }
        }
        self.put(lit_code[END] as u64, lit_len[END] as u32);
        self.tokens = tokens;
        self.tokens.clear();
        self.lit = [0; LITLEN];
        self.dist = [0; DIST];
    }
}

/// The lengths of `lens` (a block's code lengths) as run-length codes:
/// (symbol 0 - 18, the value of its extra bits, their count).
fn run_lengths(lens: &[u8]) -> Vec<(u8, u8, u8)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lens.len() {
        let v = lens[i];
        let run = lens[i..].iter().take_while(|&&x| x == v).count();
        i += run;
        let mut left = run;
        if v == 0 {
            while left >= 11 {
                let k = left.min(138);
                out.push((18, (k - 11) as u8, 7));
                left -= k;
            }
            if left >= 3 {
                out.push((17, (left - 3) as u8, 3));
                left = 0;
            }
        } else {
            out.push((v, 0, 0));
            left -= 1;
            while left >= 3 {
                let k = left.min(6);
                out.push((16, (k - 3) as u8, 2));
                left -= k;
            }
        }
        out.extend(std::iter::repeat_n((v, 0, 0), left));
    }
    out
}

/// Huffman code lengths for the counts `freq`, none longer than `limit`:
/// a complete code over the symbols counted (at least two; a symbol is
/// added with a count of 1 when fewer are counted). Lengths over the limit
/// are brought under it by halving the counts and building again.
fn code_lengths(freq: &[u64], limit: u8) -> Vec<u8> {
    let mut f: Vec<u64> = freq.to_vec();
    let mut used = f.iter().filter(|&&x| x > 0).count();
    for x in f.iter_mut() {
        if used >= 2 {
            break;
        }
        if *x == 0 {
            *x = 1;
            used += 1;
        }
    }
    loop {
        let lens = huffman(&f);
        if lens.iter().all(|&l| l <= limit) {
            return lens;
        }
        for x in f.iter_mut().filter(|x| **x > 0) {
            *x = (*x >> 1).max(1);
        }
    }
}

/// Unlimited Huffman code lengths of the symbols with counts (the others
/// 0), by the two-queue method over the leaves sorted by count.
fn huffman(freq: &[u64]) -> Vec<u8> {
    let mut leaves: Vec<(u64, usize)> = (freq.iter().enumerate())
        .filter(|&(_, &x)| x > 0)
        .map(|(s, &x)| (x, s))
        .collect();
    leaves.sort_unstable();
    let n = leaves.len();
    let mut weight: Vec<u64> = leaves.iter().map(|l| l.0).collect();
    let mut parent = vec![0usize; 2 * n - 1];
    let (mut leaf, mut inner) = (0, n);
    // The lighter of the next leaf and the next inner node (inner nodes
    // are made in order of weight), a leaf on a tie.
    let pick = |leaf: &mut usize, inner: &mut usize, weight: &[u64], k: usize| {
        if *leaf < n && (*inner >= k || weight[*leaf] <= weight[*inner]) {
            *leaf += 1;
            *leaf - 1
        } else {
            *inner += 1;
            *inner - 1
        }
    };
    for k in n..2 * n - 1 {
        let x = pick(&mut leaf, &mut inner, &weight, k);
        let y = pick(&mut leaf, &mut inner, &weight, k);
        weight.push(weight[x] + weight[y]);
        parent[x] = k;
        parent[y] = k;
    }
    let mut depth = vec![0u8; 2 * n - 1];
    for k in (0..2 * n - 2).rev() {
        depth[k] = depth[parent[k]] + 1;
    }
    let mut lens = vec![0u8; freq.len()];
    for (i, &(_, s)) in leaves.iter().enumerate() {
        lens[s] = depth[i];
    }
    lens
}

/// The canonical codes of `lens` (RFC 1951 section 3.2.2), each with its
/// bits reversed, as deflate writes a code from its first bit.
fn canonical(lens: &[u8]) -> Vec<u16> {
    let mut count = [0u16; 16];
    for &l in lens {
        count[l as usize] += 1;
    }
    count[0] = 0;
    let mut next = [0u16; 16];
    let mut code = 0u16;
    for b in 1..16 {
        code = (code + count[b - 1]) << 1;
        next[b] = code;
    }
    lens.iter()
        .map(|&l| {
            if l == 0 {
                return 0;
            }
            let c = next[l as usize];
            next[l as usize] += 1;
            c.reverse_bits() >> (16 - l)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pack(runs: &[(u8, u64)]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut z = RunZlib::new(&mut out);
        for &(c, n) in runs {
            z.push(c, n);
        }
        z.finish();
        out
    }

    fn bytes(runs: &[(u8, u64)]) -> Vec<u8> {
        runs.iter()
            .flat_map(|&(c, n)| std::iter::repeat_n(c, n as usize))
            .collect()
    }

    fn inflate(z: &[u8]) -> Vec<u8> {
        miniz_oxide::inflate::decompress_to_vec_zlib(z).expect("a valid zlib stream")
    }

    #[test]
    fn runs_inflate_to_their_bytes() {
        let runs = [
            (b'x', 70_000),
            (b'0', 1),
            (b'1', 2),
            (b'0', 3),
            (b'1', 258),
            (b'1', 1),
            (b'x', 259),
            (b'0', 516),
            (b'z', 4),
        ];
        assert_eq!(inflate(&pack(&runs)), bytes(&runs));
        // Nothing at all: an empty block and the Adler-32 of nothing, 1.
        let empty = pack(&[]);
        assert_eq!(inflate(&empty), b"");
        assert_eq!(empty[empty.len() - 4..], [0, 0, 0, 1]);
    }

    /// A run costs its literal and two bits a 258 bytes: 100 M bytes of
    /// `0` and 100 M of `x` pack into under 200 kB, and the stream's
    /// Adler-32 (taken in closed form) is the bytes' own, which the
    /// inflater checks.
    #[test]
    fn a_long_run_packs_to_two_bits_a_match() {
        let runs = [(b'0', 100_000_000), (b'x', 100_000_000)];
        let z = pack(&runs);
        assert!(z.len() < 200_000, "{} bytes", z.len());
        let back = inflate(&z);
        assert_eq!(back.len(), 200_000_000);
        assert!(back[..100_000_000].iter().all(|&c| c == b'0'));
        assert!(back[100_000_000..].iter().all(|&c| c == b'x'));
    }

    #[test]
    fn codes_are_complete_and_within_their_limit() {
        // Counts as skewed as a run's: one symbol millions of times, the
        // rest once or a power of two apart.
        let mut f = vec![0u64; LITLEN];
        f[285] = 16_000_000;
        for (i, x) in f.iter_mut().enumerate().take(40) {
            *x = 1 << (i % 31);
        }
        for (freq, limit) in [(f, 15u8), (vec![5, 0, 0], 15), (vec![0; 19], 7)] {
            let lens = code_lengths(&freq, limit);
            assert!(lens.iter().all(|&l| l <= limit));
            let kraft: f64 = (lens.iter().filter(|&&l| l > 0))
                .map(|&l| 0.5f64.powi(l as i32))
                .sum();
            assert_eq!(kraft, 1.0, "{lens:?}");
        }
    }

    proptest! {
        /// Any runs and bytes, in any mix, inflate to what was pushed
        /// (the blocks' own codes, matches across blocks and runs joined
        /// across calls included).
        #[test]
        fn any_runs_inflate_to_their_bytes(
            parts in proptest::collection::vec(
                (0u8..4, 1u64..2_000, proptest::collection::vec(0u8..4, 0..40)),
                0..200,
            ),
        ) {
            let mut out = Vec::new();
            let mut want = Vec::new();
            let mut z = RunZlib::new(&mut out);
            for (c, n, raw) in &parts {
                let c = b"01xz"[*c as usize];
                z.push(c, *n);
                want.extend(std::iter::repeat_n(c, *n as usize));
                let raw: Vec<u8> = raw.iter().map(|&r| b"01xz"[r as usize]).collect();
                z.push_bytes(&raw);
                want.extend_from_slice(&raw);
            }
            z.finish();
            prop_assert_eq!(inflate(&out), want);
        }

    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        /// Long runs of a few bytes, interleaved: matches and literals
        /// repeated thousands of times, with the codes' lengths each
        /// block's counts give them, written several copies at a time.
        #[test]
        fn long_runs_inflate_to_their_bytes(
            runs in proptest::collection::vec((0u8..3, 1u64..200_000), 1..8),
            lone in proptest::collection::vec(0u8..255, 0..300),
        ) {
            let mut all: Vec<(u8, u64)> =
                runs.iter().map(|&(c, n)| (b"0x1"[c as usize], n)).collect();
            // Single bytes, each a literal, many of one value in a row.
            all.extend(lone.iter().map(|&b| (b % 3 + b'a', 1)));
            all.extend(runs.iter().map(|&(c, n)| (b"1x0"[c as usize], n / 7 + 1)));
            prop_assert_eq!(inflate(&pack(&all)), bytes(&all));
        }

        /// Every byte value, runs of every length around the match
        /// lengths' edges, and enough tokens to fill several blocks.
        #[test]
        fn bytes_of_every_value_across_blocks_inflate(
            seed in any::<u64>(),
        ) {
            let mut x = seed | 1;
            let mut runs = Vec::new();
            for _ in 0..40_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let n = match x % 5 {
                    0 => 1,
                    1 => 2 + x % 4,
                    2 => 255 + x % 8,
                    3 => 514 + x % 4,
                    _ => 1 + x % 40,
                };
                runs.push(((x >> 32) as u8, n));
            }
            prop_assert_eq!(inflate(&pack(&runs)), bytes(&runs));
        }
    }
}
