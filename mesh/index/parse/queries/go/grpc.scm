; Go: what the gRPC pass of mesh/index/parse/_go.py reads, captured in the outline's traversal
; when the bytes mention Server or Client.
[(field_declaration) (parameter_declaration) (var_spec) (short_var_declaration) (assignment_statement)
 (keyed_element) (call_expression)] @node
