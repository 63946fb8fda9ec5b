; C#: the definitions and using directives of a file (read by mesh/index/parse/_csharp.py).
; Each capture names the kind of definition; a record is a class or, as `record struct`, a struct;
; a field is a definition (kind constant) only when const or static readonly.
(namespace_declaration name: (_)) @module
; a file-scoped namespace is no definition: the file's namespace (a Namespace fact)
(file_scoped_namespace_declaration name: (_) @file_namespace)
(class_declaration name: (_)) @class
(struct_declaration name: (_)) @struct
(interface_declaration name: (_)) @interface
(record_declaration name: (_)) @record
(enum_declaration name: (_)) @enum
(method_declaration name: (_)) @method
(constructor_declaration name: (_)) @method
(local_function_statement name: (_)) @function
; members an agent looks up by name: enum members, constants (const, static readonly), properties
; (kind method: a property is its accessors), delegate types (kind type)
(enum_member_declaration name: (_)) @constant
(field_declaration) @field
(property_declaration name: (_)) @property
(delegate_declaration name: (_)) @delegate
(using_directive) @using
