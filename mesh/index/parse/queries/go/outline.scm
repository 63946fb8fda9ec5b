; Go: the definitions and imports of a file (read by mesh/index/parse/_go.py).
[(function_declaration) (method_declaration) (type_spec) (type_alias) (const_spec)] @def
; the methods an interface declares (those of a named interface: _go.py)
(interface_type (method_elem) @def)
(import_spec) @import
