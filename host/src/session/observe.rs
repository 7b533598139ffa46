//! The observation budget (§12.5, OP-23): 256 KiB of text + base64 + MIME
//! bytes and 128 blocks, for event `result`s and `call_tool` replies.

use zot_protocol::limits::{OBSERVATION_BUDGET_BYTES, OBSERVATION_MAX_BLOCKS};
use zot_protocol::ContentBlock;

/// Applies the budget with the spec's limits; returns the kept blocks and
/// whether anything was cut or omitted.
pub fn observe(blocks: &[ContentBlock]) -> (Vec<ContentBlock>, bool) {
    observe_with(blocks, OBSERVATION_BUDGET_BYTES, OBSERVATION_MAX_BLOCKS)
}

/// [`observe`] with explicit limits. Walks blocks in order: text is cut at a
/// UTF-8 boundary when it overflows the remaining budget; images that do not
/// fit and blocks of other types are omitted; at most `max_blocks` are kept.
pub fn observe_with(
    blocks: &[ContentBlock],
    budget: usize,
    max_blocks: usize,
) -> (Vec<ContentBlock>, bool) {
    let mut out = Vec::new();
    let mut used = 0usize;
    let mut truncated = false;
    for b in blocks {
        if out.len() == max_blocks {
            truncated = true;
            break;
        }
        let left = budget - used;
        match b {
            ContentBlock::Text { text } => {
                if text.len() <= left {
                    used += text.len();
                    out.push(b.clone());
                } else {
                    truncated = true;
                    let mut end = left;
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    if end > 0 {
                        used += end;
                        out.push(ContentBlock::text(&text[..end]));
                    }
                }
            }
            ContentBlock::Image { mime_type, data } => {
                let size = mime_type.len() + data.len();
                if size <= left {
                    used += size;
                    out.push(b.clone());
                } else {
                    truncated = true;
                }
            }
            ContentBlock::Unknown(_) => truncated = true,
        }
    }
    (out, truncated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_text_at_char_boundary_and_drops_images() {
        let blocks = vec![
            ContentBlock::text("héllo"),
            ContentBlock::image("image/png", "AAAA"),
        ];
        let (out, t) = observe_with(&blocks, 2, 10);
        assert!(t);
        assert_eq!(out, vec![ContentBlock::text("h")]);
        let (out, t) = observe_with(&blocks, 100, 10);
        assert!(!t);
        assert_eq!(out.len(), 2);
        let many: Vec<_> = (0..5).map(|_| ContentBlock::text("x")).collect();
        let (out, t) = observe_with(&many, 100, 3);
        assert!(t);
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn big_text_is_truncated_to_budget() {
        let big = vec![ContentBlock::text(
            "x".repeat(OBSERVATION_BUDGET_BYTES + 10),
        )];
        let (out, t) = observe(&big);
        assert!(t);
        assert_eq!(out[0].as_text().unwrap().len(), OBSERVATION_BUDGET_BYTES);
    }

    // N-22 / HOST-146 (OP-23): at most 128 blocks; the 129th is dropped and
    // the result is marked truncated, while exactly 128 pass untouched.
    #[test]
    fn block_budget_keeps_128_and_drops_the_rest() {
        let blocks: Vec<_> = (0..=OBSERVATION_MAX_BLOCKS)
            .map(|i| ContentBlock::text(format!("b{i}")))
            .collect();
        assert_eq!(blocks.len(), 129);
        let (out, t) = observe(&blocks);
        assert!(t, "129 blocks are truncated");
        assert_eq!(out, blocks[..128].to_vec(), "the first 128 kept in order");
        let (out, t) = observe(&blocks[..128]);
        assert!(!t, "exactly 128 blocks are within the budget");
        assert_eq!(out.len(), 128);
    }
}
