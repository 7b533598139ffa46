//! The IR of the real protocol schemas: names, tags and tag lists.

use zot_codegen::ir::{Module, Ty, TypeDef, Union};

fn module() -> Module {
    zot_codegen::module().expect("the protocol schemas lower")
}

fn union<'m>(m: &'m Module, name: &str) -> &'m Union {
    match m.get(name) {
        Some(TypeDef::Union(u)) => u,
        other => panic!("{name}: expected a union, got {other:?}"),
    }
}

fn tags(u: &Union) -> Vec<&str> {
    u.members.iter().map(|m| m.tag_value.as_str()).collect()
}

#[test]
fn tag_lists_match_the_protocol_constants() {
    let m = module();
    let ext = union(&m, "ExtFrame");
    assert_eq!(tags(ext), zot_protocol::ExtFrame::TYPES);
    assert_eq!(ext.tag_list.as_ref().unwrap().const_name, "EXT_FRAME_TYPES");
    let host = union(&m, "HostFrame");
    assert_eq!(tags(host), zot_protocol::HostFrame::TYPES);
    assert_eq!(
        host.tag_list.as_ref().unwrap().const_name,
        "HOST_FRAME_TYPES"
    );
    let events = union(&m, "LifecycleEvent");
    assert_eq!(events.tag, "event");
    assert_eq!(tags(events), zot_protocol::values::LIFECYCLE_EVENT_NAMES);
    assert_eq!(
        events.tag_list.as_ref().unwrap().const_name,
        "LIFECYCLE_EVENTS"
    );
    let mut intercepts = tags(union(&m, "InterceptRequest"));
    intercepts.sort_unstable();
    let mut expected = zot_protocol::InterceptRequest::EVENTS;
    expected.sort_unstable();
    assert_eq!(intercepts, expected);
}

#[test]
fn variant_structs_are_named_after_their_tags() {
    let m = module();
    let member = |union: &str, tag: &str| {
        union_member(&m, union, tag).unwrap_or_else(|| panic!("{union} has no `{tag}`"))
    };
    assert_eq!(member("ExtFrame", "hello"), "Hello");
    assert_eq!(member("ExtFrame", "register_tool"), "RegisterTool");
    assert_eq!(member("ExtFrame", "tool_result"), "ToolResult");
    assert_eq!(member("HostFrame", "tool_result"), "HostToolResult");
    assert_eq!(member("HostFrame", "event"), "LifecycleEvent");
    assert_eq!(member("HostFrame", "event_intercept"), "InterceptRequest");
    assert_eq!(member("LifecycleEvent", "turn_start"), "TurnStartEvent");
    assert_eq!(
        member("InterceptRequest", "turn_start"),
        "TurnStartIntercept"
    );
    assert_eq!(
        member("InterceptRequest", "before_agent_start"),
        "BeforeAgentStartIntercept"
    );
    assert_eq!(member("ContentBlock", "text"), "TextBlock");
    assert_eq!(member("ContentBlock", "image"), "ImageBlock");
    // Unit frames carry only their tag.
    for (union, tag, name) in [
        ("ExtFrame", "ready", "Ready"),
        ("ExtFrame", "clear_notes", "ClearNotes"),
        ("ExtFrame", "shutdown_ack", "ShutdownAck"),
        ("HostFrame", "shutdown", "Shutdown"),
    ] {
        assert_eq!(member(union, tag), name);
        let Some(TypeDef::Object(o)) = m.get(name) else {
            panic!("{name}")
        };
        assert_eq!(o.fields.len(), 1, "{name}");
        assert_eq!(o.fields[0].ty, Ty::Literal(tag.to_owned()));
    }
}

fn union_member(m: &Module, union_name: &str, tag: &str) -> Option<String> {
    union(m, union_name)
        .members
        .iter()
        .find(|x| x.tag_value == tag)
        .map(|x| x.type_name.clone())
}

#[test]
fn panel_close_is_one_type_shared_by_both_directions() {
    let m = module();
    assert_eq!(
        union_member(&m, "ExtFrame", "panel_close").unwrap(),
        "PanelClose"
    );
    assert_eq!(
        union_member(&m, "HostFrame", "panel_close").unwrap(),
        "PanelClose"
    );
    assert_eq!(
        m.types.iter().filter(|t| t.name() == "PanelClose").count(),
        1
    );
}

#[test]
fn events_carry_both_tags_first() {
    let m = module();
    for member in &union(&m, "LifecycleEvent").members {
        let Some(TypeDef::Object(o)) = m.get(&member.type_name) else {
            panic!()
        };
        assert_eq!(o.fields[0].name, "type");
        assert_eq!(o.fields[0].ty, Ty::Literal("event".into()));
        assert_eq!(o.fields[1].name, "event");
        assert_eq!(o.fields[1].ty, Ty::Literal(member.tag_value.clone()));
        for common in ["session_id", "cwd", "sequence"] {
            assert!(
                o.fields.iter().any(|f| f.name == common),
                "{}: {common}",
                o.name
            );
        }
    }
}

#[test]
fn type_names_are_unique() {
    let m = module();
    let mut names: Vec<&str> = m.types.iter().map(TypeDef::name).collect();
    let count = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), count);
}
