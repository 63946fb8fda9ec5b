; JavaScript and TypeScript: the definitions and imports of a file (read by mesh/index/parse/_ecmascript.py,
; with queries/typescript/outline.scm added for TypeScript and TSX). Capture names are read by the extractor.
; Patterns stay flat (a node and its fields): a pattern such as (class_body (method_definition)) keeps a
; cursor state alive across the whole class body, which is quadratic on deeply nested code.

(function_declaration name: (identifier)) @function
(generator_function_declaration name: (identifier)) @function
(class_declaration name: (_)) @class
(class name: (_)) @class_expr
(class_body) @class_body

; const f = () => {}, const C = class {}, const api = { get() {} }
(variable_declarator
  name: (identifier)
  value: [(arrow_function) (function_expression) (generator_function)]) @var_function
(variable_declarator name: (identifier) value: (class) @class_value) @var_class
(variable_declarator name: (identifier) value: [(object) (parenthesized_expression)]) @var_object

; module-level const declarations: constants when the value is a literal, or the name is a class-like or
; capitalised one (MAX_ITEMS = 50, Status = Object.freeze({ PAID: "paid" })); the extractor decides
(program (lexical_declaration) @module_const)
(export_statement declaration: (lexical_declaration) @module_const)

; Foo.prototype.bar = function () {}, exports.f = () => {}, module.exports = { f() {} }
(assignment_expression
  left: (member_expression)
  right: [(arrow_function) (function_expression) (generator_function) (object) (parenthesized_expression)]) @assign_member

; imports: import ... from, export ... from, require("x"), import("x")
(import_statement) @import
(export_statement source: (_)) @export
(call_expression
  function: (identifier) @_require (#eq? @_require "require")
  arguments: (arguments . [(string) (template_string)])) @require
(call_expression function: (import) arguments: (arguments . [(string) (template_string)])) @require
