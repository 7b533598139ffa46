//! MCP tool results → zot tool results.
//!
//! zot content blocks are text and images (docs/protocol.md §4.2.1), so an
//! MCP text block stays text, an image stays an image, an embedded text
//! resource becomes its text, an embedded image blob an image, and what has
//! no zot form (audio, other binary resources, resource links) a one-line
//! text saying what it was. `structuredContent` and `isError` carry over.

use rmcp::model::{CallToolResult, RawContent, ResourceContents};
use zot_ext::ToolOutput;
use zot_protocol::ContentBlock;

/// The zot result of an MCP `tools/call` result.
pub fn tool_output(result: CallToolResult) -> ToolOutput {
    let mut blocks: Vec<ContentBlock> = result.content.into_iter().map(|c| block(c.raw)).collect();
    if blocks.is_empty() {
        // MCP servers should send the structured value as text too; for
        // one that does not, the model still sees it.
        if let Some(value) = &result.structured_content {
            blocks.push(ContentBlock::text(value.to_string()));
        }
    }
    let mut out = ToolOutput::blocks(blocks).with_error(result.is_error.unwrap_or(false));
    if let Some(value) = &result.structured_content {
        out = out.with_structured(value);
    }
    out
}

fn block(content: RawContent) -> ContentBlock {
    match content {
        RawContent::Text(t) => ContentBlock::text(t.text),
        RawContent::Image(i) => ContentBlock::image(i.mime_type, i.data),
        RawContent::Audio(a) => ContentBlock::text(format!(
            "[audio ({}) not shown: zot results carry text and images]",
            a.mime_type
        )),
        RawContent::Resource(r) => resource(r.resource),
        RawContent::ResourceLink(link) => {
            let mut text = format!("[resource {}: {}", link.uri, link.name);
            if let Some(d) = link.description.filter(|d| !d.is_empty()) {
                text.push_str(" — ");
                text.push_str(&d);
            }
            text.push(']');
            ContentBlock::text(text)
        }
    }
}

fn resource(contents: ResourceContents) -> ContentBlock {
    match contents {
        ResourceContents::TextResourceContents { text, .. } => ContentBlock::text(text),
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => match mime_type {
            Some(mime) if mime.starts_with("image/") => ContentBlock::image(mime, blob),
            mime => ContentBlock::text(format!(
                "[resource {uri} ({}) not shown: binary]",
                mime.as_deref().unwrap_or("unknown type")
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(json: serde_json::Value) -> CallToolResult {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn text_image_and_resources_map_to_blocks() {
        let out = tool_output(result(serde_json::json!({"content": [
            {"type": "text", "text": "hi"},
            {"type": "image", "data": "aGk=", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///a", "text": "body"}},
            {"type": "resource", "resource": {"uri": "file:///p", "mimeType": "image/gif", "blob": "R0lG"}},
            {"type": "resource", "resource": {"uri": "file:///z", "mimeType": "application/zip", "blob": "UEs="}},
            {"type": "resource_link", "uri": "file:///l", "name": "l"},
        ]})));
        let c = out.content();
        assert_eq!(c[0], ContentBlock::text("hi"));
        assert_eq!(c[1], ContentBlock::image("image/png", "aGk="));
        assert_eq!(c[2], ContentBlock::text("body"));
        assert_eq!(c[3], ContentBlock::image("image/gif", "R0lG"));
        assert_eq!(
            c[4].as_text(),
            Some("[resource file:///z (application/zip) not shown: binary]")
        );
        assert_eq!(c[5].as_text(), Some("[resource file:///l: l]"));
        assert!(!out.is_error());
    }

    #[test]
    fn structured_content_and_errors_carry_over() {
        let out = tool_output(result(serde_json::json!({
            "content": [], "structuredContent": {"sum": 3}, "isError": true
        })));
        assert!(out.is_error());
        assert_eq!(out.structured_content().unwrap().get(), r#"{"sum":3}"#);
        assert_eq!(out.content()[0].as_text(), Some(r#"{"sum":3}"#));
    }
}
