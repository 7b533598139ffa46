use zot_protocol::validate::*;
use zot_protocol::{Exposure, RawJson};

#[test]
fn exposure_values() {
    for v in Exposure::KNOWN {
        validate_exposure(&Exposure::from(*v)).unwrap();
    }
    let err = validate_exposure(&Exposure::from("eager")).unwrap_err();
    assert!(err.to_string().contains("\"eager\""));
}

#[test]
fn call_keys() {
    validate_call_key("step-1").unwrap();
    validate_call_key(&"k".repeat(128)).unwrap();
    // 43 three-byte characters = 129 bytes.
    assert!(validate_call_key(&"語".repeat(43)).is_err());
    assert!(validate_call_key(&"k".repeat(129)).is_err());
    assert!(validate_call_key("a/b").is_err());
    assert!(validate_call_key("a\0b").is_err());
    assert!(validate_call_key("").is_err());
}

#[test]
fn names() {
    validate_tool_name("weather_2-x").unwrap();
    assert!(validate_tool_name("").is_err());
    assert!(validate_tool_name("has space").is_err());
    assert!(validate_tool_name(&"t".repeat(65)).is_err());
    validate_command_name("Greet").unwrap();
    assert!(validate_command_name("/greet").is_err());
    assert!(validate_command_name("two words").is_err());
    assert_eq!(command_key("Greet"), command_key("gREET"));
}

#[test]
fn objects_and_tool_prompts() {
    let obj = RawJson::from_string(" {\"a\":1}".into()).unwrap();
    let arr = RawJson::from_string("[1]".into()).unwrap();
    validate_object("args", &obj).unwrap();
    assert_eq!(
        validate_object("modified_args", &arr)
            .unwrap_err()
            .to_string(),
        "`modified_args` must be a JSON object"
    );
    validate_tool_prompt("and push", "echo", Some(&obj)).unwrap();
    assert!(validate_tool_prompt("", "echo", Some(&obj)).is_err());
    assert!(validate_tool_prompt("p", "", Some(&obj)).is_err());
    assert!(validate_tool_prompt("p", "echo", Some(&arr)).is_err());
    assert!(validate_tool_prompt("p", "echo", None).is_err());
}
