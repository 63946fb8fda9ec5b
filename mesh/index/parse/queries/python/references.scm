; Python: the uses of names that code navigation keeps (read by mesh/index/parse/_navigation.py).
; @name is the name used, @qualifier what is written before it, @reference.<kind> the use.
;; declares: class_definition.name function_definition.name assignment.left keyword_argument.name
;; declares: parameters typed_parameter default_parameter.name typed_default_parameter.name
;; declares: lambda_parameters list_splat_pattern dictionary_splat_pattern global_statement nonlocal_statement
;; declares: as_pattern_target for_statement.left for_in_clause.left
;; inside: import_statement import_from_statement future_import_statement

; calls: f(), Order(), obj.f(), module.f(), Class.f()
(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @qualifier attribute: (identifier) @name)) @reference.call

; decorators name a callable: @cached, @app.route(...)
(decorator (identifier) @name) @reference.call
(decorator (attribute object: (_) @qualifier attribute: (identifier) @name)) @reference.call

; types: annotations, generic arguments, base classes
(type (identifier) @name) @reference.type
(type (attribute object: (_) @qualifier attribute: (identifier) @name)) @reference.type
(generic_type (identifier) @name) @reference.type
(class_definition superclasses: (argument_list (identifier) @name) @reference.type)
(class_definition
  superclasses: (argument_list (attribute object: (_) @qualifier attribute: (identifier) @name) @reference.type))

; values: a class, an enum member or a constant read (capitalised: Config, Color.RED, TIMEOUT)
((identifier) @name @reference.use (#match? @name "^[A-Z]"))
((attribute object: (_) @qualifier attribute: (identifier) @name) @reference.use (#match? @name "^[A-Z]"))

; what a use gives its type to: x = Order(...), self.db = pkg.UserDb(...), x: Order = ..., def f(o: Order)
(assignment left: (_) @binds right: (call function: (identifier) @name) @reference.call)
(assignment
  left: (_) @binds
  right: (call function: (attribute object: (_) @qualifier attribute: (identifier) @name)) @reference.call)
(assignment left: (_) @binds type: (type (identifier) @name)) @reference.type
(assignment left: (_) @binds type: (type (attribute object: (_) @qualifier attribute: (identifier) @name))) @reference.type
(typed_parameter (identifier) @binds type: (type (identifier) @name)) @reference.type
(typed_parameter (identifier) @binds type: (type (attribute object: (_) @qualifier attribute: (identifier) @name))) @reference.type
(typed_default_parameter name: (identifier) @binds type: (type (identifier) @name)) @reference.type
(typed_default_parameter
  name: (identifier) @binds
  type: (type (attribute object: (_) @qualifier attribute: (identifier) @name))) @reference.type

; a function or method passed as a value: f(self.db.add_user), submit(check_inventory) (a bare
; lower-case name only when the file imports or defines it: else it is most likely a variable)
(argument_list (attribute object: (_) @qualifier attribute: (identifier) @name) @reference.use)
(argument_list (identifier) @name @known @reference.use)
(keyword_argument value: (identifier) @name @known @reference.use)

; heritage: a base class or interface gives the class deriving from it (@binds): a member of the
; base reached through the derived class, its instances or its own code is the base's
(class_definition name: (_) @binds superclasses: (argument_list (identifier) @name)) @reference.type
(class_definition name: (_) @binds superclasses: (argument_list (attribute object: (_) @qualifier attribute: (identifier) @name))) @reference.type
