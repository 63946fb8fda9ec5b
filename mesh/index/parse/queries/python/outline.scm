; Python: the definitions and imports of a file (read by mesh/index/parse/_python.py).
[(function_definition) (class_definition)] @def
[(import_statement) (import_from_statement) (future_import_statement)] @import
; constants: an upper-case name assigned at module or class level (TIMEOUT = 30, Status.PAID = "paid")
(module (expression_statement (assignment left: (identifier) @constant.name) @constant)
  (#match? @constant.name "^_*[A-Z][A-Z0-9_]*$"))
(class_definition body: (block (expression_statement (assignment left: (identifier) @constant.name) @constant))
  (#match? @constant.name "^_*[A-Z][A-Z0-9_]*$"))
