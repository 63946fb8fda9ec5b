; Kotlin: the uses of names that code navigation keeps (read by mesh/index/parse/_navigation.py).
; @name is the name used, @qualifier what is written before it, @reference.<kind> the use, @binds
; the property, parameter or local the use gives its type to (val repo: Repo; val o = Order()).
; Kotlin has no `new`: Order(...) is a call of the class Order. Types and values count when
; capitalised (Order, Map.Entry, Color.RED, MAX_SIZE): lower-case parts are packages and locals.
; The grammar gives a parameter or named argument no `name` field: `parameter` (its default
; sits beside it) is wholly a declaration; a constructor property (`class A(val x: T = MAX)`)
; and a named argument (`f(timeout = MAX)`) hold their value as a sibling of their name, so their
; names stay out by spelling only (camelCase, never capitalised in practice).
;; declares: class_declaration.name object_declaration.name companion_object.name function_declaration.name
;; declares: type_alias.type variable_declaration parameter enum_entry type_parameter catch_block
;; declares: return_expression.label labeled_expression this_expression super_expression
;; inside: import package_header

; calls: f(), Order(...), listOf<T>(), obj.f(), obj?.f(), Pkg.f(), this.f(), super.f(), a.b().f { }
(call_expression . (identifier) @name) @reference.call
(call_expression . (navigation_expression . (_) @qualifier . (identifier) @name .)) @reference.call
; infix calls: a to b, x shl 2 (the receiver is the qualifier)
(infix_expression . (_) @qualifier . (identifier) @name . (_) .) @reference.call

; callable references: ::handle, Item::valid, List<Int>::size are uses of the function;
; ::Order (a constructor reference) is a call of the class
((callable_reference . (identifier) @name .) @reference.use (#match? @name "^[a-z_]"))
((callable_reference . (identifier) @name .) @reference.call (#match? @name "^[A-Z]"))
(callable_reference . (_) @qualifier . (identifier) @name .) @reference.use
((navigation_expression . (_) @qualifier . "::" . (identifier) @name .) @reference.use (#not-eq? @name "class"))

; what a declaration gives a type to (the type's last name: Map.Entry binds Entry): properties,
; locals, for-loop and typed lambda variables (variable_declaration), constructor parameters and
; properties, function parameters, a catch's variable (val repo: Repo; class A(val repo: Repo?);
; fun f(repo: Repo); { o: Order -> }; catch (e: IOException))
([(variable_declaration (identifier) @binds . [(user_type . (identifier) @name .)
     (user_type . (identifier) @name . (type_arguments))
     (user_type (identifier) @qualifier . (identifier) @name .)
     (user_type (identifier) @qualifier . (identifier) @name . (type_arguments))
     (nullable_type [(user_type . (identifier) @name .)
                     (user_type . (identifier) @name . (type_arguments))
                     (user_type (identifier) @qualifier . (identifier) @name .)
                     (user_type (identifier) @qualifier . (identifier) @name . (type_arguments))])])
  (class_parameter (identifier) @binds . [(user_type . (identifier) @name .)
     (user_type . (identifier) @name . (type_arguments))
     (user_type (identifier) @qualifier . (identifier) @name .)
     (user_type (identifier) @qualifier . (identifier) @name . (type_arguments))
     (nullable_type [(user_type . (identifier) @name .)
                     (user_type . (identifier) @name . (type_arguments))
                     (user_type (identifier) @qualifier . (identifier) @name .)
                     (user_type (identifier) @qualifier . (identifier) @name . (type_arguments))])])
  (parameter (identifier) @binds . [(user_type . (identifier) @name .)
     (user_type . (identifier) @name . (type_arguments))
     (user_type (identifier) @qualifier . (identifier) @name .)
     (user_type (identifier) @qualifier . (identifier) @name . (type_arguments))
     (nullable_type [(user_type . (identifier) @name .)
                     (user_type . (identifier) @name . (type_arguments))
                     (user_type (identifier) @qualifier . (identifier) @name .)
                     (user_type (identifier) @qualifier . (identifier) @name . (type_arguments))])])
  (catch_block (identifier) @binds . [(user_type . (identifier) @name .)
     (user_type . (identifier) @name . (type_arguments))
     (user_type (identifier) @qualifier . (identifier) @name .)
     (user_type (identifier) @qualifier . (identifier) @name . (type_arguments))
     (nullable_type [(user_type . (identifier) @name .)
                     (user_type . (identifier) @name . (type_arguments))
                     (user_type (identifier) @qualifier . (identifier) @name .)
                     (user_type (identifier) @qualifier . (identifier) @name . (type_arguments))])])]
  @reference.type (#match? @name "^[A-Z]"))
; what a constructor call gives its type to: val repo = Repo(), val i = Outer.Inner(),
; this.repo = Repo() (a capitalised callee is a class)
((property_declaration (variable_declaration (identifier) @binds) . "=" . (call_expression . [(identifier) @name (navigation_expression . (_) @qualifier . "." . (identifier) @name .)]) @reference.call)
  (#match? @name "^[A-Z]"))
((assignment left: (_) @binds right: (call_expression . [(identifier) @name (navigation_expression . (_) @qualifier . "." . (identifier) @name .)]) @reference.call) (#match? @name "^[A-Z]"))

; types: properties, parameters, return types, generic arguments and bounds, supertypes after `:`
; (with or without a constructor call), extension receivers (fun T.ext()), is / as / as?,
; catch types, type aliases, annotations (@Service, @GetMapping("/x"), @field:JsonProperty)
((user_type . (identifier) @name) @reference.type (#match? @name "^[A-Z]"))
((user_type (identifier) @qualifier . (identifier) @name) @reference.type (#match? @name "^[A-Z]"))

; values: an object, an enum entry or a constant read (Status, Color.RED, MAX, Order.Companion)
((identifier) @name @reference.use (#match? @name "^[A-Z]"))
((navigation_expression . (_) @qualifier . (identifier) @name .) @reference.use (#match? @name "^[A-Z]"))

; heritage: a base class or interface gives the class deriving from it (@binds): a member of the
; base reached through the derived class, its instances or its own code is the base's
([(class_declaration name: (_) @binds (delegation_specifiers (delegation_specifier [
      (user_type . (identifier) @name .) (user_type . (identifier) @name . (type_arguments))
      (user_type (identifier) @qualifier . (identifier) @name .) (user_type (identifier) @qualifier . (identifier) @name . (type_arguments))
      (constructor_invocation [(user_type . (identifier) @name .) (user_type . (identifier) @name . (type_arguments))
                               (user_type (identifier) @qualifier . (identifier) @name .)
                               (user_type (identifier) @qualifier . (identifier) @name . (type_arguments))])])))
  (object_declaration name: (_) @binds (delegation_specifiers (delegation_specifier [
      (user_type . (identifier) @name .) (user_type . (identifier) @name . (type_arguments))
      (user_type (identifier) @qualifier . (identifier) @name .) (user_type (identifier) @qualifier . (identifier) @name . (type_arguments))
      (constructor_invocation [(user_type . (identifier) @name .) (user_type . (identifier) @name . (type_arguments))
                               (user_type (identifier) @qualifier . (identifier) @name .)
                               (user_type (identifier) @qualifier . (identifier) @name . (type_arguments))])])))]) @reference.type
