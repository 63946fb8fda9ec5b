; PHP: the uses of names that code navigation keeps (read by mesh/index/parse/_navigation.py).
; @name is the name used, @qualifier what is written before it (`App\Models` of `App\Models\Order`,
; `$this` of `$this->save()`, `parent` of `parent::boot()`), @reference.<kind> the use.
;; declares: class_declaration.name interface_declaration.name trait_declaration.name enum_declaration.name
;; declares: function_definition.name method_declaration.name const_element enum_case.name
;; declares: variable_name argument.name named_label_statement goto_statement namespace_name declare_directive
;; inside: namespace_use_declaration

; instantiations: new Order(), new \App\Models\Order, new Base\Controller (not new static/self/parent)
((object_creation_expression [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)])
  @reference.new (#not-match? @name "^(static|self|parent)$"))

; calls: helper(), \App\helper(), $this->save(), $order?->total(), Order::find(), parent::boot()
(function_call_expression
  function: [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)]) @reference.call
(member_call_expression object: (_) @qualifier name: (name) @name) @reference.call
(nullsafe_member_call_expression object: (_) @qualifier name: (name) @name) @reference.call
(scoped_call_expression scope: (_) @qualifier name: (name) @name) @reference.call

; types: parameter, property, return and catch types, extends/implements, traits used, attributes,
; instanceof
((named_type [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)]) @reference.type
  (#not-match? @name "^(static|self|parent)$"))
(base_clause [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)]) @reference.type
(class_interface_clause [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)]) @reference.type
(use_declaration [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)]) @reference.type
(attribute [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)]) @reference.type
(binary_expression "instanceof"
  right: [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)]) @reference.type

; values: class constants and enum cases (Status::PAID, self::LIMIT, \App\Config::TIMEOUT), classes
; and constants read (Config::class, PHP_EOL, \App\MAX), capitalised properties ($this->Items)
((class_constant_access_expression (_) @qualifier . (name) @name .) @reference.use
  (#not-eq? @name "class"))
((qualified_name prefix: (_)? @qualifier (name) @name) @reference.use (#match? @name "^[A-Z]"))
((member_access_expression object: (_) @qualifier name: (name) @name) @reference.use (#match? @name "^[A-Z]"))
((name) @name @reference.use (#match? @name "^[A-Z]"))

; what a use gives its type to: $repo = new OrderRepo(), $this->client = new Client(...),
; function f(OrderService $service), __construct(private OrderService $service)
((assignment_expression
   left: (_) @binds
   right: (object_creation_expression [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)])
     @reference.new)
  (#not-match? @name "^(static|self|parent)$"))
; a parameter's declared type (nullable too): function f(OrderService $service, ?Cart $cart = null)
((simple_parameter
   type: [(named_type [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)])
          (optional_type (named_type [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)]))]
   name: (_) @binds) @reference.type
  (#not-match? @name "^(static|self|parent)$"))
; a property's declared type binds ``$this->name`` (the name without ``$``): private OrderRepo $repo;
; promoted constructor parameters are properties: __construct(private readonly OrderService $service)
((property_declaration
   type: [(named_type [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)])
          (optional_type (named_type [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)]))]
   (property_element name: (variable_name (name) @binds))) @reference.type
  (#not-match? @name "^(static|self|parent)$"))
((property_promotion_parameter
   type: [(named_type [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)])
          (optional_type (named_type [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)]))]
   name: (variable_name (name) @binds)) @reference.type
  (#not-match? @name "^(static|self|parent)$"))
; a caught exception of one class: catch (NotFound $e)
((catch_clause
   type: (type_list . (named_type [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)]) .)
   name: (_) @binds) @reference.type)

; heritage: a base class or interface gives the class deriving from it (@binds): a member of the
; base reached through the derived class, its instances or its own code is the base's
(class_declaration name: (_) @binds [(base_clause [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)])
                                      (class_interface_clause [(name) @name (qualified_name prefix: (_)? @qualifier (name) @name)])]) @reference.type
