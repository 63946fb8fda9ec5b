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

; what a container holds and what takes one of its elements (read by _navigation.py; no reference
; of their own, the element type is a type use above). @holds: a property, local, constructor
; parameter or property, or parameter whose elements are of class @name: a list, set, array,
; collection or sequence (val orders: List<Order>, MutableList<Order>?, Array<Order>; the first
; type argument); @holds_values: a map whose values are of class @name (Map<String, Order>; the
; second); either also made by a factory with type arguments (val orders = mutableListOf<Order>(),
; HashMap<String, Order>()). The containers are named: that is the only sound way, as the first
; type argument of most generic types is no element (Lazy<T>, Result<T>, Flow<T>, Comparator<T>,
; Class<T>).
([(variable_declaration (identifier) @holds . [(user_type (identifier) @_list . (type_arguments . (type_projection [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)
                                     (nullable_type [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)])])))
      (nullable_type (user_type (identifier) @_list . (type_arguments . (type_projection [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)
                                     (nullable_type [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)])]))))])
  (class_parameter (identifier) @holds . [(user_type (identifier) @_list . (type_arguments . (type_projection [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)
                                     (nullable_type [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)])])))
      (nullable_type (user_type (identifier) @_list . (type_arguments . (type_projection [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)
                                     (nullable_type [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)])]))))])
  (parameter (identifier) @holds . [(user_type (identifier) @_list . (type_arguments . (type_projection [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)
                                     (nullable_type [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)])])))
      (nullable_type (user_type (identifier) @_list . (type_arguments . (type_projection [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)
                                     (nullable_type [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)])]))))])]
 (#match? @_list "^(List|MutableList|ArrayList|LinkedList|Set|MutableSet|HashSet|LinkedHashSet|SortedSet|TreeSet|Collection|MutableCollection|Iterable|MutableIterable|Sequence|Array|ArrayDeque|Deque|Queue)$")
 (#match? @name "^[A-Z]"))
([(variable_declaration (identifier) @holds_values . [(user_type (identifier) @_map . (type_arguments . (type_projection) . (type_projection [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)
                                     (nullable_type [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)])])))
      (nullable_type (user_type (identifier) @_map . (type_arguments . (type_projection) . (type_projection [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)
                                     (nullable_type [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)])]))))])
  (class_parameter (identifier) @holds_values . [(user_type (identifier) @_map . (type_arguments . (type_projection) . (type_projection [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)
                                     (nullable_type [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)])])))
      (nullable_type (user_type (identifier) @_map . (type_arguments . (type_projection) . (type_projection [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)
                                     (nullable_type [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)])]))))])
  (parameter (identifier) @holds_values . [(user_type (identifier) @_map . (type_arguments . (type_projection) . (type_projection [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)
                                     (nullable_type [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)])])))
      (nullable_type (user_type (identifier) @_map . (type_arguments . (type_projection) . (type_projection [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)
                                     (nullable_type [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)])]))))])]
 (#match? @_map "^(Map|MutableMap|HashMap|LinkedHashMap|SortedMap|TreeMap|ConcurrentMap|ConcurrentHashMap)$")
 (#match? @name "^[A-Z]"))
((property_declaration (variable_declaration . (identifier) @holds .) . "="
   . (call_expression . (identifier) @_list . (type_arguments . (type_projection [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)
                                     (nullable_type [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)])]))))
 (#match? @_list "^(listOf|mutableListOf|arrayListOf|emptyList|listOfNotNull|setOf|mutableSetOf|hashSetOf|linkedSetOf|sortedSetOf|emptySet|arrayOf|emptyArray|arrayOfNulls|sequenceOf|emptySequence|ArrayList|LinkedList|HashSet|LinkedHashSet|TreeSet|ArrayDeque)$")
 (#match? @name "^[A-Z]"))
((property_declaration (variable_declaration . (identifier) @holds_values .) . "="
   . (call_expression . (identifier) @_map . (type_arguments . (type_projection) . (type_projection [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)
                                     (nullable_type [(user_type (identifier) @name .) (user_type (identifier) @name . (type_arguments) .)])]))))
 (#match? @_map "^(mapOf|mutableMapOf|hashMapOf|linkedMapOf|sortedMapOf|emptyMap|HashMap|LinkedHashMap|TreeMap|ConcurrentHashMap)$")
 (#match? @name "^[A-Z]"))
; @element of @container (orders, this.orders), when the element's type is not written: a loop's
; name (for (o in orders)), the value of an indexed pair (for ((i, o) in orders.withIndex())), a val
; or var set to one (orders[0], orders.first(), .last(), .single(), .get(0), .firstOrNull(),
; .find { }...: a nullable element has the element's members); @element of @values_of: one of a
; map's values (for (v in byId.values), the value of a pair: for ((k, v) in byId), byId.entries;
; byId["k"], byId.get(k), .getValue(k), .getOrDefault(k, d), .getOrPut(k) { ... }, .remove(k), also
; with !! or ?: after). A loop's one name over a map is an entry, an element read of byId, which
; holds none (_navigation.py keys a map's values apart), and a pair over a list is two properties of
; its element (a data class), a value read of the list, which holds none; an index or a get reads
; either.
(for_statement (variable_declaration . (identifier) @element .) . [(identifier) (navigation_expression . (this_expression) . (identifier) .)] @container)
((for_statement (variable_declaration . (identifier) @element .) . (navigation_expression . [(identifier) (navigation_expression . (this_expression) . (identifier) .)] @values_of . (identifier) @_values .))
 (#eq? @_values "values"))
(for_statement (multi_variable_declaration . (variable_declaration) . (variable_declaration . (identifier) @element .)) . [(identifier) (navigation_expression . (this_expression) . (identifier) .)] @values_of)
((for_statement (multi_variable_declaration . (variable_declaration) . (variable_declaration . (identifier) @element .)) . (navigation_expression . [(identifier) (navigation_expression . (this_expression) . (identifier) .)] @values_of . (identifier) @_entries .))
 (#eq? @_entries "entries"))
((for_statement (multi_variable_declaration . (variable_declaration) . (variable_declaration . (identifier) @element .))
   . (call_expression . (navigation_expression . [(identifier) (navigation_expression . (this_expression) . (identifier) .)] @container . (identifier) @_indexed .) . (value_arguments)))
 (#eq? @_indexed "withIndex"))
(property_declaration (variable_declaration . (identifier) @element .) . "=" . (index_expression . [(identifier) (navigation_expression . (this_expression) . (identifier) .)] @container))
((property_declaration (variable_declaration . (identifier) @element .) . "="
   . (call_expression . (navigation_expression . [(identifier) (navigation_expression . (this_expression) . (identifier) .)] @container . (identifier) @_get .)))
 (#match? @_get "^(first|last|single|get|elementAt|firstOrNull|lastOrNull|singleOrNull|getOrNull|elementAtOrNull|find|findLast|random|removeAt|removeFirst|removeLast)$"))
(property_declaration (variable_declaration . (identifier) @element .) . "="
   . [(index_expression . [(identifier) (navigation_expression . (this_expression) . (identifier) .)] @values_of)
      (unary_expression argument: (index_expression . [(identifier) (navigation_expression . (this_expression) . (identifier) .)] @values_of) "!!")
      (binary_expression left: (index_expression . [(identifier) (navigation_expression . (this_expression) . (identifier) .)] @values_of) "?:")])
((property_declaration (variable_declaration . (identifier) @element .) . "="
   . [(call_expression . (navigation_expression . [(identifier) (navigation_expression . (this_expression) . (identifier) .)] @values_of . (identifier) @_get .))
      (call_expression . (call_expression . (navigation_expression . [(identifier) (navigation_expression . (this_expression) . (identifier) .)] @values_of . (identifier) @_get .)) . (annotated_lambda))
      (unary_expression argument: (call_expression . (navigation_expression . [(identifier) (navigation_expression . (this_expression) . (identifier) .)] @values_of . (identifier) @_get .)) "!!")
      (binary_expression left: (call_expression . (navigation_expression . [(identifier) (navigation_expression . (this_expression) . (identifier) .)] @values_of . (identifier) @_get .)) "?:")])
 (#match? @_get "^(get|getValue|getOrDefault|getOrElse|getOrPut|remove)$"))
