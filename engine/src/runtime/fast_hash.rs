//! A cheap hasher for the engine's and the SDK's internal maps.
//!
//! Every frame goes through a few map operations (open jobs by id, tool
//! calls by wire id, handlers by name). With std's SipHash those cost
//! ≈ 800 instructions per event (bench/README.md). The keys are job ids we
//! count ourselves and names or ids from the host that launched us, so
//! hash flooding is not a threat model here: a multiply-rotate hash (the
//! scheme rustc uses) is enough and several times cheaper.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;
/// A `HashSet` with [`FastHasher`].
pub type FastSet<K> = HashSet<K, BuildHasherDefault<FastHasher>>;

/// Multiply-rotate hashing over 8-byte words.
#[derive(Default, Clone, Copy)]
pub struct FastHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            // The length goes into the (always zero) top byte, so that a
            // tail of NULs still changes the hash.
            word[7] = rest.len() as u8;
            self.add(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_ids_spread_over_the_top_bits() {
        // hashbrown takes its 7-bit tag from the top of the hash: sequential
        // job ids must not all share one tag.
        let tags: FastSet<u64> = (1..=1000u64)
            .map(|i| {
                let mut h = FastHasher::default();
                h.write_u64(i);
                h.finish() >> 57
            })
            .collect();
        assert!(tags.len() > 100, "only {} distinct tags", tags.len());
    }

    #[test]
    fn strings_that_differ_in_their_tail_hash_differently() {
        let hash = |s: &str| {
            let mut h = FastHasher::default();
            h.write(s.as_bytes());
            h.finish()
        };
        assert_ne!(hash("toolu_00000001"), hash("toolu_00000002"));
        assert_ne!(hash("a"), hash("a\0"));
        let mut m: FastMap<String, u32> = FastMap::default();
        m.insert("x".into(), 1);
        assert_eq!(m.get("x"), Some(&1));
    }
}
