//! The intermediate representation the templates render: a flat list of
//! named types, small enough that each target language maps it directly.
//!
//! The IR knows nothing about JSON Schema (see [`crate::lower`]) nor about
//! any target language (see [`crate::render`]).

/// Everything one generated module declares.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Module {
    /// Named types, in declaration order (unions before their members).
    pub types: Vec<TypeDef>,
}

impl Module {
    /// The type called `name`, if any.
    pub fn get(&self, name: &str) -> Option<&TypeDef> {
        self.types.iter().find(|t| t.name() == name)
    }

    /// The types of one section, in declaration order.
    pub fn section(&self, section: Section) -> impl Iterator<Item = &TypeDef> {
        self.types.iter().filter(move |t| t.section() == section)
    }
}

/// Where a type comes from; the generated files group types by section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Section {
    /// Closed (or open) sets of string values.
    ValueSets,
    /// Payloads named in the schemas' `definitions`, shared by frames.
    Payloads,
    /// Frames the extension sends.
    ExtToHost,
    /// Frames the host sends.
    HostToExt,
    /// The engine ↔ binding messages (the contract module only).
    Contract,
}

impl Section {
    /// Every section, in file order.
    pub const ALL: [Section; 4] = [
        Section::ValueSets,
        Section::Payloads,
        Section::ExtToHost,
        Section::HostToExt,
    ];

    /// The section heading used in the generated files.
    pub fn title(self) -> &'static str {
        match self {
            Section::ValueSets => "Value sets",
            Section::Payloads => "Shared payloads",
            Section::ExtToHost => "Extension → host frames",
            Section::HostToExt => "Host → extension frames",
            Section::Contract => "Engine ↔ binding messages",
        }
    }
}

/// One named type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeDef {
    /// A JSON object with known fields.
    Object(Object),
    /// A set of string values.
    StringSet(StringSet),
    /// A union of object types told apart by a tag field.
    Union(Union),
}

impl TypeDef {
    /// The type's name in every target language.
    pub fn name(&self) -> &str {
        match self {
            TypeDef::Object(o) => &o.name,
            TypeDef::StringSet(s) => &s.name,
            TypeDef::Union(u) => &u.name,
        }
    }

    /// The section the type is declared in.
    pub fn section(&self) -> Section {
        match self {
            TypeDef::Object(o) => o.section,
            TypeDef::StringSet(_) => Section::ValueSets,
            TypeDef::Union(u) => u.section,
        }
    }
}

/// A JSON object type (a frame, an event, a payload).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object {
    /// Type name.
    pub name: String,
    /// Documentation, from the schema `description`.
    pub doc: Option<String>,
    /// Fields in wire order: tag fields first, then the schema's order.
    pub fields: Vec<Field>,
    /// Where the type is declared.
    pub section: Section,
}

impl Object {
    /// Whether two objects have the same fields (documentation of the type
    /// itself aside): such types are declared once and shared.
    pub fn same_shape(&self, other: &Object) -> bool {
        self.fields == other.fields
    }

    /// The fields every value has.
    pub fn required_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| !f.optional)
    }

    /// The fields that may be absent.
    pub fn optional_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| f.optional)
    }

    /// Whether any field may be absent.
    pub fn has_optional(&self) -> bool {
        self.fields.iter().any(|f| f.optional)
    }

    /// Whether any field is required.
    pub fn has_required(&self) -> bool {
        self.fields.iter().any(|f| !f.optional)
    }
}

/// One field of an [`Object`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Wire name (snake_case).
    pub name: String,
    /// Value type.
    pub ty: Ty,
    /// Whether the key may be absent.
    pub optional: bool,
    /// Documentation, from the property's `description`.
    pub doc: Option<String>,
}

/// A set of string values (a Rust `string_enum!`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringSet {
    /// Type name.
    pub name: String,
    /// Documentation.
    pub doc: Option<String>,
    /// The documented values, in schema order.
    pub values: Vec<String>,
    /// Whether the schema also admits other strings (forward compatibility).
    pub open: bool,
}

/// A discriminated union: every member is an object (or a nested union)
/// whose `tag` field holds one fixed string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Union {
    /// Type name.
    pub name: String,
    /// Documentation.
    pub doc: Option<String>,
    /// The discriminating field (`type` or `event`).
    pub tag: String,
    /// Members in schema order.
    pub members: Vec<Member>,
    /// Whether the schema also admits objects with other tag values.
    pub open: bool,
    /// The runtime list of the tag values, if the union exports one.
    pub tag_list: Option<TagList>,
    /// Where the type is declared.
    pub section: Section,
}

/// One member of a [`Union`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The member's value of the union's tag field.
    pub tag_value: String,
    /// The member type (an [`Object`] or a nested [`Union`]).
    pub type_name: String,
}

/// A constant listing a union's tag values (e.g. `EXT_FRAME_TYPES`), with a
/// type alias of those values (e.g. `ExtFrameType`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagList {
    /// Constant name (SCREAMING_SNAKE_CASE).
    pub const_name: String,
    /// Name of the alias of the value type.
    pub alias_name: String,
    /// The tag values in schema order.
    pub values: Vec<String>,
}

/// The type of a field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    /// A string.
    String,
    /// An integer (all protocol integers fit a JavaScript number).
    Integer,
    /// A floating-point number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// Any JSON value.
    Any,
    /// Any JSON object.
    JsonObject,
    /// An array.
    Array(Box<Ty>),
    /// A named type of the module.
    Named(String),
    /// One fixed string (a tag).
    Literal(String),
}
