; Java: the uses of names that code navigation keeps (read by mesh/index/parse/_navigation.py).
; @name is the name used, @qualifier what is written before it, @reference.<kind> the use, @binds
; the field, local or parameter the use gives its type to (OrderService orders; this.repo = new Repo()).
; Types and values count when capitalised (Order, Map.Entry, Status.NEW, MAX_SIZE): lower-case
; parts of a written type or expression are packages (java.util.List) and locals.
;; declares: class_declaration.name interface_declaration.name enum_declaration.name record_declaration.name
;; declares: annotation_type_declaration.name annotation_type_element_declaration.name
;; declares: method_declaration.name constructor_declaration.name compact_constructor_declaration.name
;; declares: variable_declarator.name formal_parameter.name catch_formal_parameter.name resource.name
;; declares: enhanced_for_statement.name instanceof_expression.name enum_constant.name type_parameter
;; declares: lambda_expression.parameters inferred_parameters element_value_pair.key
;; declares: labeled_statement break_statement continue_statement
;; inside: import_declaration package_declaration module_declaration

; calls: f(), obj.f(), Cls.f(), this.f(), super.f(), Util.<T>f(), a.b().f()
(method_invocation !object name: (identifier) @name) @reference.call
(method_invocation object: (_) @qualifier name: (identifier) @name) @reference.call

; method references: Item::valid, this::handle, System.out::println are uses of the method;
; Order::new (a constructor reference) is a call of the class
(method_reference . (_) @qualifier . (identifier) @name .) @reference.use
(method_reference . (identifier) @name . "new" .) @reference.call
(method_reference . (type_identifier) @name . "new" .) @reference.call
(method_reference . (generic_type . (type_identifier) @name) . "new" .) @reference.call

; instantiations: new Order(...), new HashMap<>(), new Outer.Inner(), new java.util.ArrayList<T>()
(object_creation_expression type: (type_identifier) @name) @reference.new
(object_creation_expression
  type: (scoped_type_identifier (_) @qualifier . (type_identifier) @name .)) @reference.new
(object_creation_expression type: (generic_type . (type_identifier) @name)) @reference.new
(object_creation_expression
  type: (generic_type . (scoped_type_identifier (_) @qualifier . (type_identifier) @name .))) @reference.new

; what a declaration gives a type to: fields, interface constants, locals, parameters (record
; components and typed lambda parameters too), try resources, for-each variables, instanceof
; patterns and a single catch type (OrderService orders; Map.Entry<K, V> e; for (Order o : all);
; o instanceof Refund r; catch (OrderException e)). A qualified type keeps its qualifier here: the
; match that binds replaces the plain type match of the same name node.
([(field_declaration
    type: [(type_identifier) @name
     (generic_type . (type_identifier) @name)
     (scoped_type_identifier (_) @qualifier . (type_identifier) @name .)
     (generic_type . (scoped_type_identifier (_) @qualifier . (type_identifier) @name .))]
    declarator: (variable_declarator name: (identifier) @binds))
  (local_variable_declaration
    type: [(type_identifier) @name
     (generic_type . (type_identifier) @name)
     (scoped_type_identifier (_) @qualifier . (type_identifier) @name .)
     (generic_type . (scoped_type_identifier (_) @qualifier . (type_identifier) @name .))]
    declarator: (variable_declarator name: (identifier) @binds))
  (constant_declaration
    type: [(type_identifier) @name
     (generic_type . (type_identifier) @name)
     (scoped_type_identifier (_) @qualifier . (type_identifier) @name .)
     (generic_type . (scoped_type_identifier (_) @qualifier . (type_identifier) @name .))]
    declarator: (variable_declarator name: (identifier) @binds))]
  @reference.type (#match? @name "^[A-Z]"))
([(formal_parameter
    type: [(type_identifier) @name
     (generic_type . (type_identifier) @name)
     (scoped_type_identifier (_) @qualifier . (type_identifier) @name .)
     (generic_type . (scoped_type_identifier (_) @qualifier . (type_identifier) @name .))]
    name: (identifier) @binds)
  (resource
    type: [(type_identifier) @name
     (generic_type . (type_identifier) @name)
     (scoped_type_identifier (_) @qualifier . (type_identifier) @name .)
     (generic_type . (scoped_type_identifier (_) @qualifier . (type_identifier) @name .))]
    name: (identifier) @binds)
  (enhanced_for_statement
    type: [(type_identifier) @name
     (generic_type . (type_identifier) @name)
     (scoped_type_identifier (_) @qualifier . (type_identifier) @name .)
     (generic_type . (scoped_type_identifier (_) @qualifier . (type_identifier) @name .))]
    name: (identifier) @binds)
  (instanceof_expression
    right: [(type_identifier) @name
     (generic_type . (type_identifier) @name)
     (scoped_type_identifier (_) @qualifier . (type_identifier) @name .)
     (generic_type . (scoped_type_identifier (_) @qualifier . (type_identifier) @name .))]
    name: (identifier) @binds)]
  @reference.type (#match? @name "^[A-Z]"))
((catch_formal_parameter (catch_type . (type_identifier) @name .) name: (identifier) @binds)
  @reference.type (#match? @name "^[A-Z]"))
; what an instantiation or a cast gives its type to: var repo = new Repo(); this.repo = new Repo();
; repo = new Outer.Repo(); var paid = (PaidOrder) order
(variable_declarator
  name: (identifier) @binds
  value: (object_creation_expression type: [(type_identifier) @name
   (generic_type . (type_identifier) @name)
   (scoped_type_identifier (_) @qualifier . (type_identifier) @name .)
   (generic_type . (scoped_type_identifier (_) @qualifier . (type_identifier) @name .))]) @reference.new)
(assignment_expression
  left: [(identifier) (field_access)] @binds
  right: (object_creation_expression type: [(type_identifier) @name
   (generic_type . (type_identifier) @name)
   (scoped_type_identifier (_) @qualifier . (type_identifier) @name .)
   (generic_type . (scoped_type_identifier (_) @qualifier . (type_identifier) @name .))]) @reference.new)
((variable_declarator
  name: (identifier) @binds
  value: (cast_expression type: [(type_identifier) @name
   (generic_type . (type_identifier) @name)
   (scoped_type_identifier (_) @qualifier . (type_identifier) @name .)
   (generic_type . (scoped_type_identifier (_) @qualifier . (type_identifier) @name .))]) @reference.type) (#match? @name "^[A-Z]"))

; types: fields, parameters, locals, return types, generic arguments and bounds, extends and
; implements, throws, casts, instanceof, catch types, class literals, array types, Map.Entry
((type_identifier) @name @reference.type (#match? @name "^[A-Z]"))
((scoped_type_identifier (_) @qualifier . (type_identifier) @name .) @reference.type (#match? @name "^[A-Z]"))

; annotations name a type: @Service, @RequestMapping("/x"), @javax.inject.Inject
(marker_annotation name: (identifier) @name) @reference.type
(annotation name: (identifier) @name) @reference.type
(marker_annotation name: (scoped_identifier scope: (_) @qualifier name: (identifier) @name)) @reference.type
(annotation name: (scoped_identifier scope: (_) @qualifier name: (identifier) @name)) @reference.type

; record patterns name their record: case Point(int x, int y) ->
(record_pattern . (identifier) @name) @reference.type

; values: a class, an enum constant or a constant read (Status, Status.NEW, MAX_SIZE, Config.TIMEOUT)
((identifier) @name @reference.use (#match? @name "^[A-Z]"))
((field_access object: (_) @qualifier field: (identifier) @name) @reference.use (#match? @name "^[A-Z]"))

; heritage: a base class or interface gives the class deriving from it (@binds): a member of the
; base reached through the derived class, its instances or its own code is the base's
([(class_declaration name: (_) @binds superclass: (superclass [(type_identifier) @name (generic_type . (type_identifier) @name)]))
  (class_declaration name: (_) @binds interfaces: (super_interfaces (type_list [(type_identifier) @name (generic_type . (type_identifier) @name)])))
  (enum_declaration name: (_) @binds interfaces: (super_interfaces (type_list [(type_identifier) @name (generic_type . (type_identifier) @name)])))
  (record_declaration name: (_) @binds interfaces: (super_interfaces (type_list [(type_identifier) @name (generic_type . (type_identifier) @name)])))
  (interface_declaration name: (_) @binds (extends_interfaces (type_list [(type_identifier) @name (generic_type . (type_identifier) @name)])))]) @reference.type
