; C++: the definitions and #include lines of a file (read by mesh/index/parse/_cpp.py).
; Flat patterns only: a parent pattern waiting for a child keeps a cursor state alive across the
; parent's whole subtree, which is quadratic on deeply nested code.
(namespace_definition name: (_)) @module
(class_specifier name: (_) body: (_)) @class
(struct_specifier name: (_) body: (_)) @struct
(enum_specifier name: (_) body: (_)) @enum
(function_definition declarator: (_)) @function
(field_declaration declarator: [(function_declarator) (pointer_declarator) (reference_declarator)]) @member
(declaration declarator: [(function_declarator) (pointer_declarator) (reference_declarator)]) @prototype
(preproc_include path: (_)) @include
; members and names an agent looks up: enumerators, constants (a const or constexpr variable at
; namespace level, a static const or constexpr member), type aliases (using X = ...; typedef),
; macros (object-like with a value: constant; function-like: function)
(enumerator name: (_)) @enumerator
(declaration (type_qualifier) declarator: (_)) @constant
(field_declaration (type_qualifier) declarator: (_)) @constant_member
(alias_declaration name: (_)) @alias
(type_definition declarator: (_)) @alias
(preproc_def name: (_) value: (_)) @macro
(preproc_function_def name: (_)) @function_macro
; a static member defined out of line (int Orders::count = 0;): its qualified name is no reference
(init_declarator declarator: (qualified_identifier) @out_of_line)
(init_declarator declarator: (_ declarator: (qualified_identifier) @out_of_line))
(declaration declarator: (qualified_identifier) @out_of_line)
; the most vexing parse: T x(y); in a body is a variable constructed from y, not a prototype
; taking a y (mesh/index/parse/_cpp.py keeps only those in a body; y is a value there, not a type)
(declaration declarator: (function_declarator parameters: (parameter_list (parameter_declaration !declarator type: (type_identifier) @vexing))))
; a using declaration (using acme::Order; using namespace std;) names no reference; a using
; declaration and a namespace alias (namespace pr = acme::pricing;) say what later names mean
(using_declaration) @using
(namespace_alias_definition name: (_)) @namespace_alias
