import MarkdownIt from 'markdown-it';

/**
 * The partner reference as one static HTML page, rendered on the server from the OpenAPI
 * document the routes generate: no script at all, so it is readable the moment its HTML
 * arrives (0.57 s to its first operation against Swagger UI's 1.24 s, cold, on this machine:
 * docs/benchmarks.md, "Reference page"). Markdown in descriptions is rendered with HTML off: the
 * document is ours, but nothing in it is ever read as markup.
 */

/** The part of an OpenAPI 3.1 document this page reads. */
interface Schema {
  $ref?: string;
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  example?: unknown;
  additionalProperties?: boolean | Schema;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
  security?: unknown[];
}

export interface OpenApiDocument {
  info: { title: string; description?: string; version: string };
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

export const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const md = (text: string | undefined) => (text ? markdown.render(text) : '');
const mdInline = (text: string | undefined) => (text ? markdown.renderInline(text) : '');
const code = (text: string) => `<code>${escapeHtml(text)}</code>`;
const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);
const schemaLink = (name: string) => `<a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a>`;
const operationAnchor = (method: string, path: string, operation: Operation) =>
  `op-${operation.operationId ?? `${method}-${path.replace(/[^A-Za-z0-9]+/g, '-')}`}`;

/** `string`, `integer ≥ 1`, `array of Incident`, `"sos" | "medical"`, `AccessCode or null`: a type in a few words. */
function typeSummary(schema: Schema | undefined, schemas: Record<string, Schema>): string {
  if (!schema) return 'any';
  if (schema.$ref) {
    // A named list of values is shown in place: `category` reads as its values, not a link to follow.
    const named = schemas[refName(schema.$ref)];
    const values = named?.enum ? `: ${named.enum.map((value) => code(JSON.stringify(value))).join(' | ')}` : '';
    return schemaLink(refName(schema.$ref)) + values;
  }
  if (schema.const !== undefined) return code(JSON.stringify(schema.const));
  if (schema.enum) return schema.enum.map((value) => code(JSON.stringify(value))).join(' | ');
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    const nullable = variants.some((variant) => variant.type === 'null');
    const others = variants.filter((variant) => variant.type !== 'null').map((variant) => typeSummary(variant, schemas));
    return others.join(' | ') + (nullable ? ' or null' : '');
  }
  if (schema.allOf) return schema.allOf.map((part) => typeSummary(part, schemas)).join(' and ');
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const nullable = types.includes('null');
  const base = types.filter((type) => type !== 'null');
  let text = base.length ? base.join(' | ') : 'any';
  if (base.includes('array')) text = `array of ${typeSummary(schema.items, schemas)}`;
  if (schema.format) text += ` (${escapeHtml(schema.format)})`;
  return text + (nullable ? ' or null' : '');
}

/** Bounds, defaults and examples, as one short line. */
function constraints(schema: Schema): string {
  const inner = schema.anyOf?.find((variant) => variant.type !== 'null') ?? schema;
  const parts: string[] = [];
  if (inner.minimum !== undefined && inner.maximum !== undefined) parts.push(`${inner.minimum} to ${inner.maximum}`);
  else if (inner.minimum !== undefined) parts.push(`at least ${inner.minimum}`);
  else if (inner.maximum !== undefined) parts.push(`at most ${inner.maximum}`);
  if (inner.maxLength !== undefined) parts.push(`${inner.minLength ? `${inner.minLength} to ` : 'up to '}${inner.maxLength} characters`);
  if (inner.maxItems !== undefined) parts.push(`${inner.minItems ? `${inner.minItems} to ` : 'up to '}${inner.maxItems} items`);
  const fallback = schema.default ?? inner.default;
  if (fallback !== undefined) parts.push(`default ${code(JSON.stringify(fallback))}`);
  const example = schema.example ?? inner.example;
  if (example !== undefined) parts.push(`e.g. ${code(JSON.stringify(example))}`);
  return parts.length ? `<span class="constraints">${parts.join('; ')}</span>` : '';
}

/** The object a property holds (inline, or a named schema), if any: shown as a nested table. */
function nestedObject(schema: Schema, schemas: Record<string, Schema>): Schema | undefined {
  const inner = schema.anyOf?.find((variant) => variant.type !== 'null') ?? schema;
  const target = inner.items ?? inner;
  const resolved = target.$ref ? schemas[refName(target.$ref)] : target;
  return resolved?.properties ? resolved : undefined;
}

function fieldsTable(schema: Schema, schemas: Record<string, Schema>, depth: number): string {
  const required = new Set(schema.required ?? []);
  const rows = Object.entries(schema.properties ?? {}).map(([name, property]) => {
    // Two levels in place; deeper, the schema's link leads to it.
    const nested = depth < 2 ? nestedObject(property, schemas) : undefined;
    const description = property.description ?? property.anyOf?.find((variant) => variant.description)?.description;
    return `<tr><td>${code(name)}${required.has(name) ? ' <span class="required">required</span>' : ''}</td><td>${typeSummary(property, schemas)}</td><td>${mdInline(description)} ${constraints(property)}${
      nested ? `<details><summary>fields</summary>${fieldsTable(nested, schemas, depth + 1)}</details>` : ''
    }</td></tr>`;
  });
  if (!rows.length) return '<p class="muted">No fields.</p>';
  return `<table class="fields"><thead><tr><th>Field</th><th>Type</th><th>Description</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** A body's schema: a named schema's fields shown in place (its nested schemas linked), or an inline one. */
function bodySchema(schema: Schema | undefined, schemas: Record<string, Schema>): string {
  if (!schema) return '';
  const resolved = schema.$ref ? schemas[refName(schema.$ref)] : schema;
  const title = schema.$ref ? `<p class="schema-name">${schemaLink(refName(schema.$ref))}</p>` : '';
  if (!resolved) return title;
  if (resolved.properties) return `${title}${fieldsTable(resolved, schemas, 0)}`;
  return `${title}<p>${typeSummary(resolved, schemas)}</p>`;
}

function parametersTable(parameters: Parameter[], schemas: Record<string, Schema>): string {
  const rows = parameters.map(
    (parameter) =>
      `<tr><td>${code(parameter.name)}${parameter.required ? ' <span class="required">required</span>' : ''}</td><td>${escapeHtml(parameter.in)}</td><td>${typeSummary(parameter.schema, schemas)}</td><td>${mdInline(parameter.description ?? parameter.schema?.description)} ${parameter.schema ? constraints(parameter.schema) : ''}</td></tr>`,
  );
  return `<table class="fields"><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Description</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function renderOperation(method: string, path: string, operation: Operation, schemas: Record<string, Schema>): string {
  const parts = [
    `<article class="operation" id="${escapeHtml(operationAnchor(method, path, operation))}">`,
    `<h3><span class="method ${method}">${method.toUpperCase()}</span> <code class="path">${escapeHtml(path)}</code></h3>`,
    operation.summary ? `<p class="summary">${mdInline(operation.summary)}</p>` : '',
    md(operation.description),
  ];
  if (operation.parameters?.length) parts.push('<h4>Parameters</h4>', parametersTable(operation.parameters, schemas));
  const body = operation.requestBody?.content?.['application/json'];
  if (body) parts.push(`<h4>Request body${operation.requestBody?.required ? '' : ' (optional)'}</h4>`, bodySchema(body.schema, schemas));
  const responses = Object.entries(operation.responses ?? {});
  const success = responses.filter(([status]) => status.startsWith('2'));
  const failures = responses.filter(([status]) => !status.startsWith('2'));
  for (const [status, response] of success) {
    const content = response.content?.['application/json'] ?? response.content?.['text/event-stream'];
    parts.push(`<h4>${escapeHtml(status)}: ${mdInline(response.description)}</h4>`, bodySchema(content?.schema, schemas));
  }
  if (failures.length) {
    parts.push(
      `<details class="errors"><summary>Errors (${failures.map(([status]) => escapeHtml(status)).join(', ')}), each an ${schemaLink('Error')}</summary><table class="fields"><tbody>${failures
        .map(([status, response]) => `<tr><td>${escapeHtml(status)}</td><td>${mdInline(response.description)}</td></tr>`)
        .join('')}</tbody></table></details>`,
    );
  }
  parts.push('</article>');
  return parts.join('\n');
}

function renderSchema(name: string, schema: Schema, schemas: Record<string, Schema>): string {
  const body = schema.properties
    ? fieldsTable(schema, schemas, 2)
    : schema.enum
      ? `<p>One of ${schema.enum.map((value) => code(JSON.stringify(value))).join(', ')}.</p>`
      : `<p>${typeSummary(schema, schemas)}</p>`;
  return `<section class="schema" id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>${md(schema.description)}${body}</section>`;
}

export interface ReferencePageOptions {
  /** The "First request" section, as HTML (it names the page's own address). */
  firstRequest: string;
  /** Where the page's stylesheet is, relative to the page. */
  stylesheet: string;
  /** The machine-readable document, relative to the page. */
  documentUrl: string;
}

/** The whole page. The document's description: its first paragraph opens the page, the rest (the protocol, the data's citations) follows the operations. */
export function renderReferencePage(document: OpenApiDocument, options: ReferencePageOptions): string {
  const schemas = document.components?.schemas ?? {};
  const [intro = '', ...rest] = (document.info.description ?? '').split(/\n\s*\n/);
  const byTag = new Map<string, { method: string; path: string; operation: Operation }[]>();
  for (const tag of document.tags ?? []) byTag.set(tag.name, []);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push({ method, path, operation });
    }
  }
  const tagDescription = new Map((document.tags ?? []).map((tag) => [tag.name, tag.description]));
  const tagId = (tag: string) => `tag-${tag.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  const groups = [...byTag].filter(([, operations]) => operations.length);

  const nav = [
    '<nav class="toc" aria-label="Contents"><p class="toc-title">Contents</p><ul>',
    '<li><a href="#first-request">Your first request</a></li>',
    ...groups.map(
      ([tag, operations]) =>
        `<li><a href="#${tagId(tag)}">${escapeHtml(tag)}</a><ul>${operations
          .map(({ method, path, operation }) => `<li><a href="#${escapeHtml(operationAnchor(method, path, operation))}"><span class="method ${method}">${method.toUpperCase()}</span> ${escapeHtml(path)}</a></li>`)
          .join('')}</ul></li>`,
    ),
    '<li><a href="#protocol">Protocol and data</a></li>',
    '<li><a href="#schemas">Schemas</a></li>',
    '</ul></nav>',
  ].join('');

  const main = [
    `<header><h1>${escapeHtml(document.info.title)} <span class="version">${escapeHtml(document.info.version)}</span></h1>${md(intro)}<p>The machine-readable document: <a href="${escapeHtml(options.documentUrl)}">openapi.json</a> (OpenAPI 3.1).</p></header>`,
    `<section id="first-request"><h2>Your first request</h2>${options.firstRequest}</section>`,
    ...groups.map(
      ([tag, operations]) =>
        `<section class="tag" id="${tagId(tag)}"><h2>${escapeHtml(tag)}</h2>${md(tagDescription.get(tag))}${operations.map(({ method, path, operation }) => renderOperation(method, path, operation, schemas)).join('\n')}</section>`,
    ),
    `<section id="protocol"><h2>Protocol and data</h2>${md(rest.join('\n\n'))}</section>`,
    `<section id="schemas"><h2>Schemas</h2>${Object.entries(schemas)
      .map(([name, schema]) => renderSchema(name, schema, schemas))
      .join('\n')}</section>`,
  ].join('\n');

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(document.info.title)} reference</title>
<link rel="stylesheet" href="${escapeHtml(options.stylesheet)}">
</head>
<body>
<div class="layout">
${nav}
<main>
${main}
</main>
</div>
</body>
</html>
`;
}
