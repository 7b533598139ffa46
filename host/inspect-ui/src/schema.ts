// JSON Schema helpers: a form generated from a tool's input schema (with a
// raw JSON editor beside it), and an example value of a schema (the
// prefilled payloads of events and interceptions).

import { type Child, h } from "./dom";

export type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  title?: string;
  $ref?: string;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  maximum?: number;
  definitions?: Record<string, Schema>;
  $defs?: Record<string, Schema>;
  [k: string]: unknown;
};

/** Follows `$ref` (local `#/definitions/...` or `#/$defs/...`) and single `allOf`s. */
export function resolve(s: Schema | undefined, root: Schema): Schema {
  let cur: Schema = s ?? {};
  for (let i = 0; i < 32; i++) {
    if (cur.$ref?.startsWith("#/")) {
      const path = cur.$ref.slice(2).split("/");
      let target: unknown = root;
      for (const p of path) target = (target as Record<string, unknown> | undefined)?.[p];
      const { $ref: _ref, ...rest } = cur;
      cur = { ...(target as Schema), ...rest };
    } else if (cur.allOf?.length === 1 && Object.keys(cur).length <= 3) {
      const { allOf, ...rest } = cur;
      cur = { ...(allOf[0] as Schema), ...rest };
    } else {
      return cur;
    }
  }
  return cur;
}

function typeOf(s: Schema): string {
  if (Array.isArray(s.type)) return s.type.find((t) => t !== "null") ?? "string";
  if (s.type) return s.type;
  if (s.properties) return "object";
  if (s.enum) return typeof s.enum[0] === "number" ? "number" : "string";
  return "";
}

/** A value that satisfies `s` (required fields and nested objects filled in). */
export function example(s0: Schema | undefined, root: Schema, name = "", hints: Record<string, unknown> = {}): unknown {
  const s = resolve(s0, root);
  if (name in hints) return hints[name];
  if (s.const !== undefined) return s.const;
  if (s.default !== undefined && s.default !== "" && s.default !== 0) return s.default;
  if (s.enum?.length) return s.enum[0];
  const alt = s.oneOf ?? s.anyOf;
  if (alt?.length) return example(alt[0], root, name, hints);
  switch (typeOf(s)) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(s.properties ?? {})) out[k] = example(v, root, k, hints);
      return out;
    }
    case "array":
      return s.items ? [example(s.items, root, name, hints)] : [];
    case "integer":
      return typeof s.minimum === "number" && s.minimum > 0 ? s.minimum : 1;
    case "number":
      return 1;
    case "boolean":
      return false;
    case "string":
      return name ? `example ${name.replace(/_/g, " ")}` : "example";
    default:
      return {};
  }
}

/** A form for an object schema; `read()` gives the value, `write()` sets it. */
export interface Form {
  el: HTMLElement;
  read(): unknown;
  write(v: unknown): void;
}

export function form(schema0: Schema, root: Schema = schema0): Form {
  return field(resolve(schema0, root), root, "", true, []);
}

function label(name: string, s: Schema, required: boolean): Child {
  if (!name) return null;
  return h(
    "span.field-name",
    null,
    name,
    required ? h("span.req", { title: "required" }, "*") : null,
    typeOf(s) ? h("span.field-type", null, typeOf(s)) : null,
  );
}

function field(s: Schema, root: Schema, name: string, required: boolean, path: string[]): Form {
  const t = typeOf(s);
  const id = ["f", ...path].join("-");
  const desc = s.description ? h("div.field-desc", null, s.description) : null;
  if (t === "object" && s.properties) {
    const req = new Set(s.required ?? []);
    const kids = Object.entries(s.properties).map(([k, v]) => {
      const sub = resolve(v, root);
      return [k, field(sub, root, k, req.has(k), [...path, k]), req.has(k)] as const;
    });
    const el = name
      ? h(
          "fieldset.field",
          null,
          h("legend", null, label(name, s, required)),
          desc,
          kids.map((k) => k[1].el),
        )
      : h(
          "div.form",
          null,
          desc,
          kids.map((k) => k[1].el),
        );
    return {
      el,
      read() {
        const out: Record<string, unknown> = {};
        for (const [k, f, isReq] of kids) {
          const v = f.read();
          if (v !== undefined || isReq) out[k] = v;
        }
        return out;
      },
      write(v) {
        const o = (v && typeof v === "object" ? v : {}) as Record<string, unknown>;
        for (const [k, f] of kids) f.write(o[k]);
      },
    };
  }
  if (s.enum?.length) {
    const sel = h(
      "select",
      { id, "data-field": name },
      required ? null : h("option", { value: "" }, "—"),
      s.enum.map((v, i) => h("option", { value: String(i) }, JSON.stringify(v))),
    );
    return {
      el: h("label.field", null, label(name, s, required), sel, desc),
      read: () => (sel.value === "" ? undefined : s.enum?.[Number(sel.value)]),
      write(v) {
        const i = s.enum?.findIndex((e) => JSON.stringify(e) === JSON.stringify(v)) ?? -1;
        sel.value = i >= 0 ? String(i) : required ? "0" : "";
      },
    };
  }
  if (t === "boolean") {
    const box = h("input", { type: "checkbox", id, "data-field": name });
    return {
      el: h("label.field.check", null, box, label(name, s, required), desc),
      read: () => box.checked,
      write(v) {
        box.checked = v === true;
      },
    };
  }
  if (t === "string" || t === "integer" || t === "number") {
    const numeric = t !== "string";
    const multi = !numeric && /text|content|body|prompt|code|command/i.test(name);
    const input = multi
      ? h("textarea", { id, rows: 3, "data-field": name })
      : h("input", { id, type: numeric ? "number" : "text", "data-field": name, step: t === "integer" ? 1 : "any" });
    return {
      el: h("label.field", null, label(name, s, required), input, desc),
      read() {
        if (input.value === "") return required ? (numeric ? 0 : "") : undefined;
        return numeric ? Number(input.value) : input.value;
      },
      write(v) {
        input.value = v === undefined || v === null ? "" : String(v);
      },
    };
  }
  // Arrays, unions, free-form objects: JSON.
  const area = h("textarea.json", { id, rows: 3, "data-field": name, spellcheck: "false" });
  return {
    el: h("label.field", null, label(name, s, required), area, h("div.field-desc", null, "JSON"), desc),
    read() {
      if (area.value.trim() === "") return undefined;
      return JSON.parse(area.value) as unknown;
    },
    write(v) {
      area.value = v === undefined ? "" : JSON.stringify(v);
    },
  };
}
