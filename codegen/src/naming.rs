//! How generated types are named.
//!
//! The schemas inline the variant structs of the frame and event enums, so
//! their names are derived from the tag: a member of union `U` tagged `t` is
//! called `Pascal(t) + suffix(U)` (`turn_start` in `LifecycleEvent` →
//! `TurnStartEvent`). The few names that cannot be derived (nested unions,
//! runtime tag lists) are listed here, so that a new one fails loudly instead
//! of getting an invented name.

/// Naming of one union's members and of its runtime tag list.
struct UnionNaming {
    union: &'static str,
    member_suffix: &'static str,
    tag_list: Option<(&'static str, &'static str)>,
}

const UNIONS: &[UnionNaming] = &[
    UnionNaming {
        union: "ExtFrame",
        member_suffix: "",
        tag_list: Some(("EXT_FRAME_TYPES", "ExtFrameType")),
    },
    UnionNaming {
        union: "HostFrame",
        member_suffix: "",
        tag_list: Some(("HOST_FRAME_TYPES", "HostFrameType")),
    },
    UnionNaming {
        union: "LifecycleEvent",
        member_suffix: "Event",
        tag_list: Some(("LIFECYCLE_EVENTS", "LifecycleEventName")),
    },
    UnionNaming {
        union: "InterceptRequest",
        member_suffix: "Intercept",
        tag_list: Some(("INTERCEPT_EVENTS", "InterceptEventName")),
    },
    UnionNaming {
        union: "Job",
        member_suffix: "Job",
        tag_list: Some(("JOB_KINDS", "JobKind")),
    },
    UnionNaming {
        union: "ContentBlock",
        member_suffix: "Block",
        tag_list: None,
    },
];

/// Unions nested in a member of another union: (outer union, the member's
/// tag value, name of the nested union). These mirror the Rust enums.
const NESTED_UNIONS: &[(&str, &str, &str)] = &[
    ("HostFrame", "event", "LifecycleEvent"),
    ("HostFrame", "event_intercept", "InterceptRequest"),
];

/// `turn_start` → `TurnStart`, `model-only` → `ModelOnly`.
pub fn pascal(s: &str) -> String {
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            let first = cs.next().map(|c| c.to_ascii_uppercase());
            first.into_iter().chain(cs).collect::<String>()
        })
        .collect()
}

/// The last word of a PascalCase name: `ContentBlock` → `Block`.
fn last_word(name: &str) -> &str {
    let start = name.rfind(|c: char| c.is_ascii_uppercase()).unwrap_or(0);
    &name[start..]
}

/// The name of the member of `union` whose tag is `tag_value`.
///
/// Unions not listed above name their members after the last word of the
/// union's name (`ContentBlock` → `TextBlock`).
pub fn member_name(union: &str, tag_value: &str) -> String {
    let suffix = UNIONS
        .iter()
        .find(|u| u.union == union)
        .map_or_else(|| last_word(union), |u| u.member_suffix);
    format!("{}{suffix}", pascal(tag_value))
}

/// The name of the union nested in the member `tag_value` of `union`.
pub fn nested_union_name(union: &str, tag_value: &str) -> Option<&'static str> {
    NESTED_UNIONS
        .iter()
        .find(|(u, t, _)| *u == union && *t == tag_value)
        .map(|(_, _, name)| *name)
}

/// The (constant, value alias) names of a union's runtime tag list, if it
/// exports one.
pub fn tag_list_names(union: &str) -> Option<(&'static str, &'static str)> {
    UNIONS
        .iter()
        .find(|u| u.union == union)
        .and_then(|u| u.tag_list)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pascal_case() {
        assert_eq!(pascal("hello"), "Hello");
        assert_eq!(pascal("register_tool"), "RegisterTool");
        assert_eq!(pascal("model-only"), "ModelOnly");
        assert_eq!(
            pascal("tool_confirmation_requested"),
            "ToolConfirmationRequested"
        );
    }

    #[test]
    fn member_names_follow_the_union() {
        assert_eq!(member_name("ExtFrame", "shutdown_ack"), "ShutdownAck");
        assert_eq!(
            member_name("LifecycleEvent", "turn_start"),
            "TurnStartEvent"
        );
        assert_eq!(
            member_name("InterceptRequest", "before_agent_start"),
            "BeforeAgentStartIntercept"
        );
        assert_eq!(member_name("ContentBlock", "image"), "ImageBlock");
        assert_eq!(member_name("FuturePart", "x"), "XPart");
    }
}
