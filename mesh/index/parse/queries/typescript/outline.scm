; TypeScript and TSX: the definitions the TypeScript grammars add to queries/javascript/outline.scm
; (read by mesh/index/parse/_ecmascript.py after it).

(function_signature name: (identifier)) @signature
(abstract_class_declaration name: (_)) @class
(interface_declaration name: (_)) @interface
(type_alias_declaration name: (_)) @type
(enum_declaration name: (_)) @enum
; enum members (constants of the enum) and interface method signatures (methods of the interface)
(enum_body) @enum_body
(interface_body) @interface_body
(internal_module name: [(identifier) (nested_identifier)]) @module
(module name: [(identifier) (nested_identifier)]) @module
(variable_declarator name: (identifier) value: [(as_expression) (satisfies_expression)]) @var_object
