//! Lowering: JSON Schema (draft-07, as [`zot_protocol::schema`] writes it) →
//! [`crate::ir`]. The schema is read through schemars 0.8's typed draft-07
//! model ([`RootSchema`]), the one typify reads too.
//!
//! Only the constructs the protocol schemas use are understood; anything
//! else is an error naming the schema path, so that a change to the
//! protocol types that the generators cannot express fails `cargo run -p
//! zot-codegen` instead of producing a wrong file.
//!
//! Recognized shapes:
//! - a string schema with `enum` → [`StringSet`]; a `oneOf` of such a schema
//!   and a plain string schema (or one with `not`) → an *open* set;
//! - an object schema with `properties` → [`Object`];
//! - a `oneOf` of object schemas that each pin one common property to a
//!   single-value `enum` → [`Union`] tagged by that property. A member may
//!   itself carry a `oneOf` (the `event` frame): that is a nested union whose
//!   members inherit the outer tag field. A member whose tag is an unpinned
//!   string is a catch-all for unknown tags and makes the union *open*.

use std::collections::BTreeSet;

use schemars08::schema::{InstanceType, RootSchema, Schema, SchemaObject, SingleOrVec};

use crate::ir::{Field, Member, Module, Object, Section, StringSet, TagList, Ty, TypeDef, Union};
use crate::naming;

/// How the contract schema refers to a type of the protocol module.
pub const PROTOCOL_REF: &str = "zot-protocol#/";

/// A schema construct the generator cannot express.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LowerError {
    /// Where in the schema (`ExtFrame/hello.capabilities`, `definitions/X`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for LowerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for LowerError {}

fn err<T>(path: &str, message: impl Into<String>) -> Result<T, LowerError> {
    Err(LowerError {
        path: path.to_owned(),
        message: message.into(),
    })
}

/// One direction's schema and how to name what it declares.
#[derive(Debug, Clone, Copy)]
pub struct RootSpec<'a> {
    /// Name of the root union (`ExtFrame`, `HostFrame`).
    pub name: &'static str,
    /// Section of the frames.
    pub section: Section,
    /// Prefix given to a frame whose derived name is already taken by a
    /// different type of an earlier root (`Host` → `HostToolResult`).
    pub conflict_prefix: &'static str,
    /// The schema.
    pub schema: &'a RootSchema,
}

/// Lowers the roots, in order, into one module. Definitions and frames that
/// the roots share (same name and shape) are declared once.
pub fn lower(roots: &[RootSpec<'_>]) -> Result<Module, LowerError> {
    let mut l = Lowerer::default();
    for root in roots {
        for (name, schema) in &root.schema.definitions {
            l.definition(name, schema)?;
        }
    }
    for root in roots {
        let path = root.name;
        let schema = &root.schema.schema;
        let Some(members) = schema.subschemas.as_ref().and_then(|s| s.one_of.as_ref()) else {
            return err(path, "the root schema is not a `oneOf`");
        };
        let ctx = UnionCtx {
            section: root.section,
            conflict_prefix: root.conflict_prefix,
        };
        l.union(root.name, doc(schema), members, &[], ctx, path)?;
    }
    Ok(Module { types: l.types })
}

#[derive(Default)]
struct Lowerer {
    types: Vec<TypeDef>,
}

#[derive(Clone, Copy)]
struct UnionCtx {
    section: Section,
    conflict_prefix: &'static str,
}

impl Lowerer {
    fn find(&self, name: &str) -> Option<usize> {
        self.types.iter().position(|t| t.name() == name)
    }

    /// A named definition; the same name in two roots must be the same type.
    fn definition(&mut self, name: &str, schema: &Schema) -> Result<(), LowerError> {
        let path = format!("definitions/{name}");
        let obj = object_schema(schema, &path)?;
        // Lowered on its own first, then merged, so that a definition both
        // roots carry is compared as a whole (a union with its members).
        let mut scratch = Lowerer::default();
        if let Some(set) = string_set(name, obj) {
            scratch.types.push(TypeDef::StringSet(set));
        } else if let Some(members) = obj.subschemas.as_ref().and_then(|s| s.one_of.as_ref()) {
            if let Some(set) = open_string_set(name, obj, members) {
                scratch.types.push(TypeDef::StringSet(set));
            } else {
                let ctx = UnionCtx {
                    section: Section::Payloads,
                    conflict_prefix: "",
                };
                scratch.union(name, doc(obj), members, &[], ctx, &path)?;
            }
        } else if is_object_with_properties(obj) {
            scratch.types.push(TypeDef::Object(Object {
                name: name.to_owned(),
                doc: doc(obj),
                fields: fields(obj, &[], &path)?,
                section: Section::Payloads,
            }));
        } else {
            return err(&path, "expected a string `enum`, a `oneOf` or an object");
        }
        for def in scratch.types {
            match self.find(def.name()) {
                None => self.types.push(def),
                Some(i) if self.types[i] == def => {}
                Some(_) => {
                    return err(
                        &path,
                        format!(
                            "`{}` is defined differently in the two directions",
                            def.name()
                        ),
                    )
                }
            }
        }
        Ok(())
    }

    /// A tagged union and all its members; returns nothing, the union is
    /// registered under `name` before its members (declaration order).
    fn union(
        &mut self,
        name: &str,
        union_doc: Option<String>,
        members: &[Schema],
        inherited: &[Field],
        ctx: UnionCtx,
        path: &str,
    ) -> Result<(), LowerError> {
        if self.find(name).is_some() {
            return err(path, format!("the union name `{name}` is already taken"));
        }
        let slot = self.types.len();
        self.types.push(TypeDef::Union(Union {
            name: name.to_owned(),
            doc: union_doc,
            tag: String::new(),
            members: Vec::new(),
            open: false,
            tag_list: None,
            section: ctx.section,
        }));

        let objects = members
            .iter()
            .enumerate()
            .map(|(i, m)| object_schema(m, &format!("{path}/oneOf[{i}]")))
            .collect::<Result<Vec<_>, _>>()?;
        let tag = union_tag(&objects, path)?;

        let mut out = Vec::new();
        let mut open = false;
        for (i, member) in objects.into_iter().enumerate() {
            let Some(tag_value) = pinned_string(member, &tag) else {
                if is_catch_all(member, &tag) {
                    open = true;
                    continue;
                }
                return err(&format!("{path}/oneOf[{i}]"), format!("no `{tag}` tag"));
            };
            let member_path = format!("{path}/{tag_value}");
            let tag_field = Field {
                name: tag.clone(),
                ty: Ty::Literal(tag_value.clone()),
                optional: false,
                doc: None,
            };
            let mut own = inherited.to_vec();
            own.push(tag_field);
            let skip: Vec<&str> = own.iter().map(|f| f.name.as_str()).collect();
            own.extend(fields(member, &skip, &member_path)?);

            let type_name =
                if let Some(nested) = member.subschemas.as_ref().and_then(|s| s.one_of.as_ref()) {
                    let Some(nested_name) = naming::nested_union_name(name, &tag_value) else {
                        return err(
                            &member_path,
                            "a nested union without a name: add it to naming::NESTED_UNIONS",
                        );
                    };
                    self.union(nested_name, doc(member), nested, &own, ctx, &member_path)?;
                    nested_name.to_owned()
                } else {
                    let object = Object {
                        name: naming::member_name(name, &tag_value),
                        doc: doc(member),
                        fields: own,
                        section: ctx.section,
                    };
                    self.add_object(object, ctx.conflict_prefix, &member_path)?
                };
            out.push(Member {
                tag_value,
                type_name,
            });
        }

        let tag_list = naming::tag_list_names(name).map(|(c, a)| TagList {
            const_name: c.to_owned(),
            alias_name: a.to_owned(),
            values: out.iter().map(|m| m.tag_value.clone()).collect(),
        });
        let TypeDef::Union(u) = &mut self.types[slot] else {
            unreachable!("slot holds the union placeholder");
        };
        u.tag = tag;
        u.members = out;
        u.open = open;
        u.tag_list = tag_list;
        Ok(())
    }

    /// Registers a union member; returns the name it is declared under.
    ///
    /// A same-named object of the same shape is shared (both directions'
    /// `panel_close`); a different one makes this one take the prefix
    /// (`tool_result` from the host → `HostToolResult`).
    fn add_object(
        &mut self,
        mut object: Object,
        conflict_prefix: &str,
        path: &str,
    ) -> Result<String, LowerError> {
        let Some(i) = self.find(&object.name) else {
            let name = object.name.clone();
            self.types.push(TypeDef::Object(object));
            return Ok(name);
        };
        match &mut self.types[i] {
            TypeDef::Object(existing) if existing.same_shape(&object) => {
                if existing.doc != object.doc {
                    existing.doc = merged_doc(existing, &object);
                }
                Ok(existing.name.clone())
            }
            _ if !conflict_prefix.is_empty() && !object.name.starts_with(conflict_prefix) => {
                object.name = format!("{conflict_prefix}{}", object.name);
                self.add_object(object, conflict_prefix, path)
            }
            _ => err(
                path,
                format!("`{}` is already declared as a different type", object.name),
            ),
        }
    }
}

/// The documentation of a type shared by two sections, each with its own
/// description.
fn merged_doc(first: &Object, second: &Object) -> Option<String> {
    let part = |o: &Object| {
        o.doc
            .as_ref()
            .map(|d| format!("{}: {d}", o.section.title()))
    };
    let parts: Vec<String> = [part(first), part(second)].into_iter().flatten().collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

fn object_schema<'s>(schema: &'s Schema, path: &str) -> Result<&'s SchemaObject, LowerError> {
    match schema {
        Schema::Object(o) => Ok(o),
        Schema::Bool(_) => err(path, "expected a schema object, found a boolean schema"),
    }
}

fn is_type(obj: &SchemaObject, ty: InstanceType) -> bool {
    matches!(&obj.instance_type, Some(SingleOrVec::Single(t)) if **t == ty)
}

fn string_values(obj: &SchemaObject) -> Option<Vec<String>> {
    let values = obj.enum_values.as_ref()?;
    values
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// A string schema with an `enum` of strings.
fn string_set(name: &str, obj: &SchemaObject) -> Option<StringSet> {
    if !is_type(obj, InstanceType::String) {
        return None;
    }
    Some(StringSet {
        name: name.to_owned(),
        doc: doc(obj),
        values: string_values(obj)?,
        open: false,
    })
}

/// `oneOf: [{string enum}, {any other string}]`: an open value set.
fn open_string_set(name: &str, obj: &SchemaObject, members: &[Schema]) -> Option<StringSet> {
    let [Schema::Object(known), Schema::Object(other)] = members else {
        return None;
    };
    let values = string_set(name, known)?.values;
    let other_is_string = is_type(other, InstanceType::String) && other.enum_values.is_none();
    other_is_string.then(|| StringSet {
        name: name.to_owned(),
        doc: doc(obj),
        values,
        open: true,
    })
}

fn is_object_with_properties(obj: &SchemaObject) -> bool {
    is_type(obj, InstanceType::Object) && obj.object.is_some()
}

/// The value a member pins `tag` to with a single-value string `enum`.
fn pinned_string(member: &SchemaObject, tag: &str) -> Option<String> {
    let prop = member.object.as_ref()?.properties.get(tag)?;
    let Schema::Object(p) = prop else { return None };
    match string_values(p)?.as_slice() {
        [one] if is_type(p, InstanceType::String) => Some(one.clone()),
        _ => None,
    }
}

/// A member that takes any other value of the tag: `{"type":"string"}`,
/// possibly with a `not` listing the known values.
fn is_catch_all(member: &SchemaObject, tag: &str) -> bool {
    let Some(Schema::Object(p)) = member.object.as_ref().and_then(|o| o.properties.get(tag)) else {
        return false;
    };
    is_type(p, InstanceType::String) && p.enum_values.is_none()
}

/// The property every tagged member pins to one string.
fn union_tag(members: &[&SchemaObject], path: &str) -> Result<String, LowerError> {
    let mut common: Option<BTreeSet<String>> = None;
    for m in members {
        let Some(props) = m.object.as_ref().map(|o| &o.properties) else {
            return err(path, "a `oneOf` member is not an object schema");
        };
        let pinned: BTreeSet<String> = props
            .keys()
            .filter(|k| pinned_string(m, k).is_some())
            .cloned()
            .collect();
        if pinned.is_empty() {
            continue; // a catch-all member
        }
        common = Some(match common {
            None => pinned,
            Some(c) => c.intersection(&pinned).cloned().collect(),
        });
    }
    let common = common.unwrap_or_default();
    let mut it = common.into_iter();
    match (it.next(), it.next()) {
        (Some(tag), None) => Ok(tag),
        (None, _) => err(path, "`oneOf` members share no single-value `enum` tag"),
        (Some(a), Some(b)) => err(path, format!("ambiguous union tag: `{a}` or `{b}`")),
    }
}

/// The fields of an object schema, in schema order, minus `skip`.
fn fields(obj: &SchemaObject, skip: &[&str], path: &str) -> Result<Vec<Field>, LowerError> {
    let Some(ov) = obj.object.as_ref() else {
        return Ok(Vec::new());
    };
    ov.properties
        .iter()
        .filter(|(name, _)| !skip.contains(&name.as_str()))
        .map(|(name, schema)| {
            let path = format!("{path}.{name}");
            Ok(Field {
                name: name.clone(),
                ty: ty(schema, &path)?,
                optional: !ov.required.contains(name),
                doc: match schema {
                    Schema::Object(o) => doc(o),
                    Schema::Bool(_) => None,
                },
            })
        })
        .collect()
}

/// The type of a property schema.
fn ty(schema: &Schema, path: &str) -> Result<Ty, LowerError> {
    let obj = match schema {
        Schema::Bool(true) => return Ok(Ty::Any),
        Schema::Bool(false) => return err(path, "a `false` schema admits no value"),
        Schema::Object(o) => o,
    };
    if let Some(r) = &obj.reference {
        // `zot-protocol#/X`: a type of the generated protocol module, which
        // the contract module imports (see `crate::contract_module`).
        return match r
            .strip_prefix("#/definitions/")
            .or_else(|| r.strip_prefix(PROTOCOL_REF))
        {
            Some(name) => Ok(Ty::Named(name.to_owned())),
            None => err(path, format!("unsupported `$ref` {r}")),
        };
    }
    if let Some(sub) = &obj.subschemas {
        // schemars wraps a `$ref` in `allOf` to give it a description.
        return match (sub.all_of.as_deref(), &sub.any_of, &sub.one_of, &sub.not) {
            (Some([single]), None, None, None) => ty(single, path),
            _ => err(path, "inline `allOf`/`anyOf`/`oneOf`/`not`: name the type"),
        };
    }
    let Some(instance_type) = &obj.instance_type else {
        return Ok(Ty::Any); // no constraint: any JSON value
    };
    let SingleOrVec::Single(t) = instance_type else {
        return err(
            path,
            "a list of types (a required `Option` field's `null`?) is not supported",
        );
    };
    Ok(match **t {
        InstanceType::String => match string_values(obj).as_deref() {
            None => Ty::String,
            Some([one]) => Ty::Literal(one.clone()),
            Some(_) => return err(path, "inline string `enum`: name the value set"),
        },
        InstanceType::Integer => Ty::Integer,
        InstanceType::Number => Ty::Number,
        InstanceType::Boolean => Ty::Boolean,
        InstanceType::Array => match obj.array.as_ref().and_then(|a| a.items.as_ref()) {
            None => Ty::Array(Box::new(Ty::Any)),
            Some(SingleOrVec::Single(item)) => Ty::Array(Box::new(ty(item, &format!("{path}[]"))?)),
            Some(SingleOrVec::Vec(_)) => return err(path, "tuple arrays are not supported"),
        },
        InstanceType::Object => match obj.object.as_deref() {
            Some(o) if !o.properties.is_empty() => {
                return err(path, "inline object with properties: name the type")
            }
            Some(o) if matches!(o.additional_properties.as_deref(), Some(s) if *s != Schema::Bool(true)) => {
                return err(path, "typed `additionalProperties` are not supported")
            }
            _ => Ty::JsonObject,
        },
        InstanceType::Null => return err(path, "`null` values are not part of the protocol"),
    })
}

/// The `description`, with rustdoc link brackets removed: "[`X`]" → "`X`".
fn doc(obj: &SchemaObject) -> Option<String> {
    let d = obj.metadata.as_ref()?.description.as_ref()?;
    Some(strip_rustdoc_links(d.trim()))
}

fn strip_rustdoc_links(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("[`") {
        let after = &rest[start + 1..];
        let end = after.find("`]").map(|e| e + 2);
        match end {
            // `[`x`](url)` and `[`x`][ref]` are real links: keep them.
            Some(e) if !matches!(after[e..].chars().next(), Some('(' | '[')) => {
                out.push_str(&rest[..start]);
                out.push_str(&after[..e - 1]);
                rest = &after[e..];
            }
            _ => {
                out.push_str(&rest[..start + 2]);
                rest = &rest[start + 2..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rustdoc_links_lose_their_brackets() {
        assert_eq!(
            strip_rustdoc_links("yields [`ExtFrame::Unknown`] with"),
            "yields `ExtFrame::Unknown` with"
        );
        assert_eq!(
            strip_rustdoc_links("[`a`](http://x) and [b]"),
            "[`a`](http://x) and [b]"
        );
        assert_eq!(strip_rustdoc_links("[`a`] [`b`]"), "`a` `b`");
    }
}

#[cfg(test)]
mod shape_tests {
    use super::*;
    use serde_json::json;

    fn root(v: serde_json::Value) -> RootSchema {
        serde_json::from_value(v).expect("a schema")
    }

    fn lower_one(schema: &RootSchema) -> Result<Module, LowerError> {
        lower(&[RootSpec {
            name: "Frame",
            section: Section::HostToExt,
            conflict_prefix: "Host",
            schema,
        }])
    }

    fn tagged(tag: &str, value: &str) -> serde_json::Value {
        json!({"type":"object","required":[tag],"properties":{tag:{"type":"string","enum":[value]}}})
    }

    #[test]
    fn open_value_sets_and_catch_all_members_are_recognized() {
        let s = root(json!({
            "oneOf": [
                tagged("type", "a"),
                {"type":"object","required":["type"],"properties":{
                    "type":{"type":"string","not":{"enum":["a"]}}}}
            ],
            "definitions": {
                "Level": {"oneOf": [
                    {"type":"string","enum":["x","y"]},
                    {"type":"string","not":{"enum":["x","y"]}}
                ]}
            }
        }));
        let m = lower_one(&s).unwrap();
        let Some(TypeDef::StringSet(level)) = m.get("Level") else {
            panic!()
        };
        assert!(level.open);
        assert_eq!(level.values, ["x", "y"]);
        let Some(TypeDef::Union(frame)) = m.get("Frame") else {
            panic!()
        };
        assert!(frame.open);
        assert_eq!(frame.members.len(), 1);
    }

    #[test]
    fn nested_unions_inherit_the_outer_tag() {
        let mut event = tagged("type", "event");
        event["oneOf"] = json!([tagged("event", "turn_start")]);
        let s = root(json!({"oneOf": [event]}));
        let m = lower(&[RootSpec {
            name: "HostFrame",
            section: Section::HostToExt,
            conflict_prefix: "Host",
            schema: &s,
        }])
        .unwrap();
        let Some(TypeDef::Object(o)) = m.get("TurnStartEvent") else {
            panic!()
        };
        let names: Vec<&str> = o.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["type", "event"]);
        assert!(matches!(m.get("LifecycleEvent"), Some(TypeDef::Union(_))));

        // A nested union that naming.rs does not name is an error.
        let e = lower_one(&s).unwrap_err();
        assert_eq!(e.path, "Frame/event");
    }

    #[test]
    fn unsupported_constructs_name_their_path() {
        let s = root(json!({"oneOf": [{
            "type":"object","required":["type"],"properties":{
                "type":{"type":"string","enum":["a"]},
                "x":{"type":"object","properties":{"y":{"type":"string"}}}}
        }]}));
        let e = lower_one(&s).unwrap_err();
        assert_eq!(e.path, "Frame/a.x");
    }

    #[test]
    fn a_conflicting_member_takes_the_prefix() {
        let mut b = tagged("type", "a");
        b["properties"]["n"] = json!({"type":"integer"});
        let first = root(json!({"oneOf": [tagged("type", "a")]}));
        let second = root(json!({"oneOf": [b]}));
        let m = lower(&[
            RootSpec {
                name: "ExtFrame",
                section: Section::ExtToHost,
                conflict_prefix: "Ext",
                schema: &first,
            },
            RootSpec {
                name: "HostFrame",
                section: Section::HostToExt,
                conflict_prefix: "Host",
                schema: &second,
            },
        ])
        .unwrap();
        assert!(m.get("A").is_some());
        assert!(m.get("HostA").is_some());
    }
}
