; Java: the definitions and imports of a file (read by mesh/index/parse/_java.py).
; @def is the declaration, @name its name; methods and constructors are kind "method".
(class_declaration name: (identifier) @name) @def
(interface_declaration name: (identifier) @name) @def
(enum_declaration name: (identifier) @name) @def
(record_declaration name: (identifier) @name) @def
(annotation_type_declaration name: (identifier) @name) @def
(method_declaration name: (identifier) @name) @def
(constructor_declaration name: (identifier) @name) @def
(compact_constructor_declaration name: (identifier) @name) @def
(import_declaration) @import
; constants (kind "constant"; the extractor adds them once the passes reading definitions as
; scopes are done): interface fields, enum constants, and fields with modifiers (kept when static
; and final, or static and named as a constant: public static Money ZERO)
(constant_declaration) @constant
(enum_constant name: (identifier) @name) @constant
(field_declaration (modifiers)) @constant
