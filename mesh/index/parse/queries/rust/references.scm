; Rust: the uses of names that code navigation keeps (read by mesh/index/parse/_navigation.py).
; @name is the name used, @qualifier what is written before it, @reference.<kind> the use.
;; declares: struct_item.name enum_item.name union_item.name trait_item.name type_item.name
;; declares: associated_type.name type_parameter.name const_parameter.name enum_variant.name
;; declares: function_item.name function_signature_item.name const_item.name static_item.name
;; declares: mod_item.name macro_definition.name let_declaration.pattern parameter.pattern
;; declares: closure_parameters for_expression.pattern label lifetime
;; inside: use_declaration extern_crate_declaration

; calls: f(), Some(x), path::f(), T::new(), Self::new(), <T as Tr>::m(), obj.m(), self.m(),
; generic calls f::<T>(), T::<U>::new(), obj.m::<T>(), and macros m!(), path::m!()
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (scoped_identifier
    path: [(identifier) (scoped_identifier) (self) (super) (crate) (metavariable) (bracketed_type)] @qualifier
    name: (identifier) @name)) @reference.call
(call_expression
  function: (scoped_identifier path: (generic_type type: (_) @qualifier) name: (identifier) @name)) @reference.call
(call_expression function: (field_expression value: (_) @qualifier field: (field_identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression
  function: (generic_function
    function: (scoped_identifier path: (_) @qualifier name: (identifier) @name))) @reference.call
(call_expression
  function: (generic_function
    function: (field_expression value: (_) @qualifier field: (field_identifier) @name))) @reference.call
(macro_invocation macro: (identifier) @name) @reference.call
(macro_invocation macro: (scoped_identifier path: (_) @qualifier name: (identifier) @name)) @reference.call
; a macro's arguments are tokens (println!("{}", cart.total())): there a call is a name right
; before a parenthesised token tree, qualified by the name before a `.` or `::`
(token_tree [(identifier) (self)] @qualifier . "." . (identifier) @name . (token_tree . "(")) @reference.call
(token_tree (identifier) @qualifier . "::" . (identifier) @name . (token_tree . "(")) @reference.call
(token_tree (identifier) @name . (token_tree . "(")) @reference.call

; instantiations: struct expressions T { .. }, path::T { .. }, Enum::Variant { .. }, T::<U> { .. }
((struct_expression name: (type_identifier) @name) @reference.new (#not-eq? @name "Self"))
(struct_expression name: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)) @reference.new
((struct_expression name: (generic_type_with_turbofish type: (type_identifier) @name)) @reference.new
 (#not-eq? @name "Self"))
(struct_expression
  name: (generic_type_with_turbofish type: (scoped_identifier path: (_) @qualifier name: (identifier) @name))) @reference.new

; types: parameters, returns, fields, lets, generic arguments, bounds, impl Trait for T, dyn/impl
; Trait, casts, patterns of a struct; attributes (#[tokio::main], the Debug of #[derive(Debug)])
(scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name) @reference.type
((type_identifier) @name @reference.type (#not-eq? @name "Self"))
; (not the built-in attributes, nor the tools' own: they name no definition to navigate to)
((attribute (identifier) @name) @reference.type
 (#not-match? @name "^(derive|cfg|cfg_attr|test|ignore|should_panic|allow|warn|deny|forbid|expect|deprecated|must_use|inline|cold|track_caller|doc|repr|non_exhaustive|path|macro_export|macro_use|no_mangle|link|link_name|export_name|used|automatically_derived|global_allocator|proc_macro|proc_macro_derive|proc_macro_attribute|recursion_limit|no_std|no_main|feature|target_feature)$"))
((attribute (scoped_identifier path: (_) @qualifier name: (identifier) @name)) @reference.type
 (#not-match? @qualifier "^(rustfmt|clippy|diagnostic)$"))
((attribute arguments: (token_tree (identifier) @name)) @reference.type (#match? @name "^[A-Z]"))

; values: capitalised names read (constants, statics, unit structs and enum variants, in patterns
; too) and capitalised members of a path (Color::Red, Self::MAX, config::TIMEOUT)
((scoped_identifier path: (_) @qualifier name: (identifier) @name) @reference.use (#match? @name "^[A-Z]"))
((token_tree (identifier) @qualifier . "::" . (identifier) @name) @reference.use (#match? @name "^[A-Z]"))
((identifier) @name @reference.use (#match? @name "^[A-Z]") (#not-eq? @name "Self"))

; what a declaration gives its type to (T, path::T, T<U>, &T, &mut T, &dyn T, impl T): parameters
; (cart: &Cart, document: &dyn Priced), closure parameters, let x: T, struct fields (orders: OrderService,
; read as self.orders), and through the holders Box, Arc and Rc, whose methods are the held type's
((parameter
  pattern: (identifier) @binds
  type: [
    (type_identifier) @name
    (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    (dynamic_type trait: (type_identifier) @name)
    (abstract_type trait: (type_identifier) @name)
    (dynamic_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    (abstract_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    (reference_type type: [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)
      (generic_type type: (type_identifier) @name)
      (generic_type type: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
      (dynamic_type trait: (type_identifier) @name)
      (abstract_type trait: (type_identifier) @name)
      (dynamic_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
      (abstract_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    ])
  ]) @reference.type
 (#not-match? @name "^(Self|Box|Arc|Rc)$"))
((let_declaration
  pattern: (identifier) @binds
  type: [
    (type_identifier) @name
    (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    (dynamic_type trait: (type_identifier) @name)
    (abstract_type trait: (type_identifier) @name)
    (dynamic_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    (abstract_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    (reference_type type: [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)
      (generic_type type: (type_identifier) @name)
      (generic_type type: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
      (dynamic_type trait: (type_identifier) @name)
      (abstract_type trait: (type_identifier) @name)
      (dynamic_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
      (abstract_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    ])
  ]) @reference.type
 (#not-match? @name "^(Self|Box|Arc|Rc)$"))
((field_declaration
  name: (field_identifier) @binds
  type: [
    (type_identifier) @name
    (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    (dynamic_type trait: (type_identifier) @name)
    (abstract_type trait: (type_identifier) @name)
    (dynamic_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    (abstract_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    (reference_type type: [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)
      (generic_type type: (type_identifier) @name)
      (generic_type type: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
      (dynamic_type trait: (type_identifier) @name)
      (abstract_type trait: (type_identifier) @name)
      (dynamic_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
      (abstract_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    ])
  ]) @reference.type
 (#not-match? @name "^(Self|Box|Arc|Rc)$"))
((parameter
  pattern: (identifier) @binds
  type: [
    (generic_type type: (type_identifier) @_holder type_arguments: (type_arguments . [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)
      (dynamic_type trait: (type_identifier) @name)
      (dynamic_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    ] .))
    (reference_type type: (generic_type type: (type_identifier) @_holder type_arguments: (type_arguments . [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)
      (dynamic_type trait: (type_identifier) @name)
      (dynamic_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    ] .)))
  ]) @reference.type
 (#match? @_holder "^(Box|Arc|Rc)$") (#not-eq? @name "Self"))
((let_declaration
  pattern: (identifier) @binds
  type: [
    (generic_type type: (type_identifier) @_holder type_arguments: (type_arguments . [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)
      (dynamic_type trait: (type_identifier) @name)
      (dynamic_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    ] .))
    (reference_type type: (generic_type type: (type_identifier) @_holder type_arguments: (type_arguments . [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)
      (dynamic_type trait: (type_identifier) @name)
      (dynamic_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    ] .)))
  ]) @reference.type
 (#match? @_holder "^(Box|Arc|Rc)$") (#not-eq? @name "Self"))
((field_declaration
  name: (field_identifier) @binds
  type: [
    (generic_type type: (type_identifier) @_holder type_arguments: (type_arguments . [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)
      (dynamic_type trait: (type_identifier) @name)
      (dynamic_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    ] .))
    (reference_type type: (generic_type type: (type_identifier) @_holder type_arguments: (type_arguments . [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)
      (dynamic_type trait: (type_identifier) @name)
      (dynamic_type trait: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
    ] .)))
  ]) @reference.type
 (#match? @_holder "^(Box|Arc|Rc)$") (#not-eq? @name "Self"))
; let x = T { .. }; let x = T::new(..) (and T::default(), T::from(..), T::new_*, T::with_*, T::from_*),
; also with ? or .unwrap() / .expect(..) after it
(let_declaration
  pattern: (identifier) @binds
  value: (struct_expression name: [
    (type_identifier) @name
    (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)
  ]) @reference.new
 (#not-eq? @name "Self"))
((let_declaration
  pattern: (identifier) @binds
  value: [
    (call_expression
    function: (scoped_identifier
      path: [
        (identifier) @name
        (scoped_identifier path: (_) @qualifier name: (identifier) @name)
        (generic_type type: (type_identifier) @name)
        (generic_type type: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
      ]
      name: (identifier) @_ctor))
    (try_expression (call_expression
    function: (scoped_identifier
      path: [
        (identifier) @name
        (scoped_identifier path: (_) @qualifier name: (identifier) @name)
        (generic_type type: (type_identifier) @name)
        (generic_type type: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
      ]
      name: (identifier) @_ctor)))
  ]) @reference.use
 (#match? @_ctor "^(new|default|from|new_[a-z0-9_]+|with_[a-z0-9_]+|from_[a-z0-9_]+)$") (#match? @name "^[A-Z]") (#not-eq? @name "Self"))
((let_declaration
  pattern: (identifier) @binds
  value: (call_expression
    function: (field_expression value: (call_expression
    function: (scoped_identifier
      path: [
        (identifier) @name
        (scoped_identifier path: (_) @qualifier name: (identifier) @name)
        (generic_type type: (type_identifier) @name)
        (generic_type type: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name))
      ]
      name: (identifier) @_ctor)) field: (field_identifier) @_unwrap))) @reference.use
 (#match? @_ctor "^(new|default|from|new_[a-z0-9_]+|with_[a-z0-9_]+|from_[a-z0-9_]+)$") (#match? @name "^[A-Z]") (#not-eq? @name "Self")
 (#match? @_unwrap "^(unwrap|expect)$"))

; a function or method passed as a value: items.map(Item::price), .map(String::from)
((arguments (scoped_identifier path: (_) @qualifier name: (identifier) @name) @reference.use) (#match? @name "^[a-z_]"))

; what a container holds and what takes one of its elements (read by _navigation.py; no reference
; of their own, the element type is a type use above). @holds: a field, parameter or let whose
; elements are of class @name (T, path::T, &T, or a Box/Arc/Rc of one): a Vec, VecDeque, set or
; heap (orders: Vec<Order>: first argument), an array or slice (arr: [Order; 4], items: &[Item]),
; also behind & or &mut; @holds_values: a map whose values are of class @name (by_id:
; HashMap<String, Order>: second argument, a hasher may follow). The generic containers are named:
; that is the only sound way, as the first argument of most generic types is no element (Option,
; Box, Arc and Mutex hold one value, Result, Cow and PhantomData none); a user generic element
; (Vec<Page<T>>) is left alone. One pattern a kind of container, each with its own predicate.
((_
  [name: (field_identifier) pattern: (identifier)] @holds
  type: [(generic_type type: [(type_identifier) @_list (scoped_type_identifier name: (type_identifier) @_list)]
           type_arguments: (type_arguments . [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)
                                           (reference_type type: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)])
                                           (generic_type type: (type_identifier) @_one type_arguments: (type_arguments .
                                             [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)
                                              (dynamic_type trait: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)])] .))]))
         (reference_type type: (generic_type type: [(type_identifier) @_list (scoped_type_identifier name: (type_identifier) @_list)]
            type_arguments: (type_arguments . [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)
                                            (reference_type type: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)])
                                            (generic_type type: (type_identifier) @_one type_arguments: (type_arguments .
                                              [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)
                                               (dynamic_type trait: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)])] .))])))])
 (#match? @_list "^(Vec|VecDeque|LinkedList|HashSet|BTreeSet|BinaryHeap|IndexSet)$")
 (#match? @_one "^(Box|Arc|Rc)$") (#not-eq? @name "Self"))
((_
  [name: (field_identifier) pattern: (identifier)] @holds_values
  type: [(generic_type type: [(type_identifier) @_map (scoped_type_identifier name: (type_identifier) @_map)]
           type_arguments: (type_arguments . (_) . [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)
                                                 (reference_type type: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)])
                                                 (generic_type type: (type_identifier) @_one type_arguments: (type_arguments .
                                                   [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)
                                                    (dynamic_type trait: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)])] .))]))
         (reference_type type: (generic_type type: [(type_identifier) @_map (scoped_type_identifier name: (type_identifier) @_map)]
            type_arguments: (type_arguments . (_) . [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)
                                                  (reference_type type: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)])
                                                  (generic_type type: (type_identifier) @_one type_arguments: (type_arguments .
                                                    [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)
                                                     (dynamic_type trait: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)])] .))])))])
 (#match? @_map "^(HashMap|BTreeMap|IndexMap)$")
 (#match? @_one "^(Box|Arc|Rc)$") (#not-eq? @name "Self"))
((_
  [name: (field_identifier) pattern: (identifier)] @holds
  type: [(array_type element: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)
                               (reference_type type: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)])
                               (generic_type type: (type_identifier) @_one type_arguments: (type_arguments .
                                 [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)
                                  (dynamic_type trait: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)])] .))])
         (reference_type type: (array_type element: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)
                                (reference_type type: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)])
                                (generic_type type: (type_identifier) @_one type_arguments: (type_arguments .
                                  [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)
                                   (dynamic_type trait: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name)])] .))]))])
 (#match? @_one "^(Box|Arc|Rc)$") (#not-eq? @name "Self"))
; @element of @container: a loop's name over a list (for o in orders, &self.orders, &mut orders,
; orders.iter(), .iter_mut(), .into_iter(); for (i, o) in orders.iter().enumerate()), a let of an
; index (let o = &orders[0], let o = items[i]); @element of @values_of: one of a map's values (the
; value of a pair: for (k, v) in &self.by_id, by_id.iter(); for v in by_id.values(), .values_mut(),
; .into_values(); let v = &by_id[&k]; a get's Some: if let Some(v) = by_id.get(&k), let v =
; by_id.get(&k).unwrap(), by_id.get_mut(k)?). A loop's one name over a map is a (key, value) pair, an
; element read of by_id, which holds none (_navigation.py keys a map's values apart); an index reads
; either. A method giving an Option of a list's element (orders.first()) is left alone. (The
; alternations stay flat: one that opens with another alternation matches only the first branch of
; the inner one.)
(for_expression
  pattern: (identifier) @element
  value: [(identifier) @container (field_expression) @container
          (reference_expression value: [(identifier) (field_expression)] @container)])
(for_expression
  pattern: (tuple_pattern "(" . [(_) "_"] . "," . (identifier) @element . ")")
  value: [(identifier) @values_of (field_expression) @values_of
          (reference_expression value: [(identifier) (field_expression)] @values_of)])
((for_expression
  pattern: (identifier) @element
  value: (call_expression function: (field_expression value: [(identifier) (field_expression)] @container field: (field_identifier) @_each)))
 (#match? @_each "^(iter|iter_mut|into_iter)$"))
((for_expression
  pattern: (tuple_pattern "(" . [(_) "_"] . "," . (identifier) @element . ")")
  value: (call_expression function: (field_expression value: [(identifier) (field_expression)] @values_of field: (field_identifier) @_each)))
 (#match? @_each "^(iter|iter_mut|into_iter)$"))
((for_expression
  pattern: (identifier) @element
  value: (call_expression function: (field_expression value: [(identifier) (field_expression)] @values_of field: (field_identifier) @_each)))
 (#match? @_each "^(values|values_mut|into_values)$"))
((for_expression
  pattern: (tuple_pattern "(" . [(_) "_"] . "," . (identifier) @element . ")")
  value: (call_expression function: (field_expression
    value: (call_expression function: (field_expression value: [(identifier) (field_expression)] @container field: (field_identifier) @_each))
    field: (field_identifier) @_enumerate)))
 (#match? @_each "^(iter|iter_mut|into_iter)$") (#eq? @_enumerate "enumerate"))
(let_declaration
  pattern: (identifier) @element
  value: [(index_expression . [(identifier) (field_expression)] @container)
          (reference_expression value: (index_expression . [(identifier) (field_expression)] @container))])
(let_declaration
  pattern: (identifier) @element
  value: [(index_expression . [(identifier) (field_expression)] @values_of . [(reference_expression) (string_literal) (identifier) (field_expression) (call_expression)] .)
          (reference_expression value: (index_expression . [(identifier) (field_expression)] @values_of . [(reference_expression) (string_literal) (identifier) (field_expression) (call_expression)] .))])
(([(let_declaration pattern: (tuple_struct_pattern type: (identifier) @_some . (identifier) @element .)
    value: (call_expression function: (field_expression value: [(identifier) (field_expression)] @values_of field: (field_identifier) @_get)))
   (let_condition pattern: (tuple_struct_pattern type: (identifier) @_some . (identifier) @element .)
    value: (call_expression function: (field_expression value: [(identifier) (field_expression)] @values_of field: (field_identifier) @_get)))])
 (#eq? @_some "Some") (#match? @_get "^get(_mut)?$"))
((let_declaration
  pattern: (identifier) @element
  value: (call_expression function: (field_expression
    value: (call_expression function: (field_expression value: [(identifier) (field_expression)] @values_of field: (field_identifier) @_get))
    field: (field_identifier) @_unwrap)))
 (#match? @_get "^get(_mut)?$") (#match? @_unwrap "^(unwrap|expect)$"))
((let_declaration
  pattern: (identifier) @element
  value: (try_expression (call_expression function: (field_expression value: [(identifier) (field_expression)] @values_of field: (field_identifier) @_get))))
 (#match? @_get "^get(_mut)?$"))
