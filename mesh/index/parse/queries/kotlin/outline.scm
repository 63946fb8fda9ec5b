; Kotlin: the definitions and imports of a file (read by mesh/index/parse/_kotlin.py).
; @def is the declaration, @name its name (a companion object without one is "Companion").
(class_declaration name: (identifier) @name) @def
(object_declaration name: (identifier) @name) @def
(companion_object) @def
(function_declaration name: (identifier) @name) @def
(type_alias type: (identifier) @name) @def
(import) @import
; constants (kind "constant"; the extractor adds them once the passes reading definitions as
; scopes are done): enum entries, and properties (kept when `const`, or a `val` of the file, an
; object or a companion named in upper case, as the Kotlin style guide names constants)
(enum_entry . (identifier) @name) @constant
(property_declaration (variable_declaration . (identifier) @name)) @constant
