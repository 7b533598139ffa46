//! MCP resources through one slash command, `/PREFIX:resources`: without
//! arguments it lists the server's resources and resource templates; with a
//! URI it reads that resource and puts its text into the editor, for the
//! user to send or edit.

use rmcp::model::{ReadResourceRequestParam, Resource, ResourceContents, ResourceTemplate};
use rmcp::service::{Peer, RoleClient};
use zot_ext::{Extension, Response};

use super::commands::CommandNames;

/// Registers `PREFIX:resources`.
pub fn register(ext: Extension, names: &mut CommandNames, peer: &Peer<RoleClient>) -> Extension {
    let command = names.assign("resources");
    let description = format!(
        "The MCP server's resources: /{command} lists them, /{command} URI puts one into the editor"
    );
    let peer = peer.clone();
    ext.command(command, description, move |args, _ctx| {
        let peer = peer.clone();
        async move {
            let uri = args.trim();
            if uri.is_empty() {
                list(&peer).await
            } else {
                read(&peer, uri).await
            }
        }
    })
}

async fn list(peer: &Peer<RoleClient>) -> Response {
    let resources = match peer.list_all_resources().await {
        Ok(r) => r,
        Err(e) => return Response::error(format!("MCP resources/list: {e}")),
    };
    // Templates are optional for a server with resources: a failure to
    // list them leaves the plain list.
    let templates = peer.list_all_resource_templates().await.unwrap_or_default();
    Response::display(listing(&resources, &templates))
}

/// One line per resource (`URI — name: description`), then the templates.
pub fn listing(resources: &[Resource], templates: &[ResourceTemplate]) -> String {
    let mut lines = Vec::new();
    if resources.is_empty() && templates.is_empty() {
        return "The MCP server lists no resources.".into();
    }
    for r in resources {
        lines.push(line(&r.raw.uri, &r.raw.name, r.raw.description.as_deref()));
    }
    if !templates.is_empty() {
        lines.push("templates (fill in the {…} parts):".into());
        for t in templates {
            let t = &t.raw;
            lines.push(line(&t.uri_template, &t.name, t.description.as_deref()));
        }
    }
    lines.join("\n")
}

fn line(uri: &str, name: &str, description: Option<&str>) -> String {
    match description.filter(|d| !d.is_empty()) {
        Some(d) => format!("{uri} — {name}: {d}"),
        None => format!("{uri} — {name}"),
    }
}

async fn read(peer: &Peer<RoleClient>, uri: &str) -> Response {
    let request = ReadResourceRequestParam {
        uri: uri.to_owned(),
    };
    match peer.read_resource(request).await {
        Ok(result) => {
            let parts: Vec<String> = result.contents.into_iter().map(text).collect();
            if parts.is_empty() {
                Response::error(format!("the MCP resource {uri} is empty"))
            } else {
                Response::insert(parts.join("\n\n"))
            }
        }
        Err(e) => Response::error(format!("MCP resources/read {uri}: {e}")),
    }
}

fn text(contents: ResourceContents) -> String {
    match contents {
        ResourceContents::TextResourceContents { text, .. } => text,
        ResourceContents::BlobResourceContents { uri, mime_type, .. } => format!(
            "[resource {uri} ({}) not included: binary]",
            mime_type.as_deref().unwrap_or("unknown type")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_listing_names_each_resource_and_template() {
        let resources: Vec<Resource> = serde_json::from_value(json!([
            {"uri": "file:///a.txt", "name": "a", "description": "The a file"},
            {"uri": "file:///b", "name": "b"},
        ]))
        .unwrap();
        let templates: Vec<ResourceTemplate> =
            serde_json::from_value(json!([{"uriTemplate": "note://{id}", "name": "note"}]))
                .unwrap();
        assert_eq!(
            listing(&resources, &templates),
            "file:///a.txt — a: The a file\nfile:///b — b\n\
             templates (fill in the {…} parts):\nnote://{id} — note"
        );
        assert_eq!(listing(&[], &[]), "The MCP server lists no resources.");
    }
}
