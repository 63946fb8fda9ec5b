; C++: the uses of names that code navigation keeps (read by mesh/index/parse/_navigation.py).
; @name is the name used, @qualifier what is written before it, @reference.<kind> the use, @binds
; the variable, member or parameter the use gives its type to.
; The grammar spells a type's name type_identifier, a scope namespace_identifier, a member
; field_identifier and anything else identifier, declared names included: values are matched
; where an expression holds them, never in a declarator. A qualified name nests to the right
; (a::b::C is a::(b::C)), so a pattern reaches its last name one level at a time and the
; qualifier is the scope written right before the name (b). Values count when capitalised or
; spelled as constants (Order, Color::Red, MAX_SIZE, kMaxSize, order.Status): lower-case names are
; locals. The last name of a qualified declarator (void Orders::Get() {}, int Orders::count = 0;)
; and what a using declaration names (using acme::Order;) are taken out by
; mesh/index/parse/_cpp.py, which finds them with its outline query.
;; declares: class_specifier.name struct_specifier.name union_specifier.name enum_specifier.name
;; declares: type_definition.declarator alias_declaration.name type_parameter_declaration
;; declares: optional_type_parameter_declaration.name variadic_type_parameter_declaration
;; declares: namespace_definition.name nested_namespace_specifier namespace_alias_definition.name
;; declares: for_range_loop.declarator enumerator.name concept_definition.name destructor_name
;; declares: preproc_def.name preproc_function_def.name preproc_params preproc_ifdef.name preproc_defined

; calls: f(), f<T>(), ::f(), ns::f(), a::b::f(), Cls::Static(), obj.m(), ptr->m(), this->m(),
; obj.m<T>() (the C++ casts are no calls: their type is a type reference)
(call_expression function: (identifier) @name) @reference.call
((call_expression function: (template_function name: (identifier) @name)) @reference.call
  (#not-match? @name "^(static|dynamic|const|reinterpret)_cast$"))
(call_expression function: (qualified_identifier !scope name: [(identifier) @name (template_function name: (identifier) @name)])) @reference.call
(call_expression function: (qualified_identifier scope: (_) @qualifier name: [(identifier) @name (template_function name: (identifier) @name)])) @reference.call
(call_expression function: (qualified_identifier name: (qualified_identifier scope: (_) @qualifier name: [(identifier) @name (template_function name: (identifier) @name)]))) @reference.call
(call_expression function: (qualified_identifier name: (qualified_identifier name: (qualified_identifier scope: (_) @qualifier name: [(identifier) @name (template_function name: (identifier) @name)])))) @reference.call
(call_expression function: (qualified_identifier name: (qualified_identifier name: (qualified_identifier name: (qualified_identifier scope: (_) @qualifier name: [(identifier) @name (template_function name: (identifier) @name)]))))) @reference.call
(call_expression
  function: (field_expression argument: (_) @qualifier
    field: [(field_identifier) @name (template_method name: (field_identifier) @name)])) @reference.call

; instantiations: new Order(...), new acme::Order, Order{...}, std::vector<int>{...},
; std::make_unique<Order>(...), std::make_shared<Order>(...)
(new_expression type: [(type_identifier) @name (template_type name: (type_identifier) @name)]) @reference.new
(new_expression type: (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])) @reference.new
(new_expression type: (qualified_identifier name: (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)]))) @reference.new
(new_expression type: (qualified_identifier name: (qualified_identifier name: (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])))) @reference.new
(compound_literal_expression type: [(type_identifier) @name (template_type name: (type_identifier) @name)]) @reference.new
(compound_literal_expression type: (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])) @reference.new
(compound_literal_expression type: (qualified_identifier name: (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)]))) @reference.new
((call_expression function: [(template_function name: (identifier) @make
     arguments: (template_argument_list . (type_descriptor type: [(type_identifier) @name (qualified_identifier scope: (_) @qualifier name: (type_identifier) @name)])))
   (qualified_identifier name: (template_function name: (identifier) @make
     arguments: (template_argument_list . (type_descriptor type: [(type_identifier) @name (qualified_identifier scope: (_) @qualifier name: (type_identifier) @name)]))))]) @reference.new (#match? @make "^make_(unique|shared)$"))

; types: the type of a declaration, field, parameter, return value, cast, new, catch clause,
; range-for or template argument (the type of T x(...) and T x{...} too), base classes; a
; qualified type (std::string, acme::Order, a::b::C<T>) at any depth
(_ type: [(type_identifier) @name (template_type name: (type_identifier) @name)]) @reference.type
(base_class_clause [(type_identifier) @name (template_type name: (type_identifier) @name)]) @reference.type
(qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)]) @reference.type
(qualified_identifier scope: (template_type name: (type_identifier) @name)) @reference.type

; values: a constant, an enumerator, a class used as a scope or a member read, when capitalised
; or spelled as a constant (MAX_SIZE, kMax, Color::Red, Config::TIMEOUT, order.Status)
(([(argument_list (identifier) @name) (binary_expression (identifier) @name)
   (unary_expression (identifier) @name) (update_expression (identifier) @name)
   (pointer_expression (identifier) @name) (parenthesized_expression (identifier) @name)
   (conditional_expression (identifier) @name) (comma_expression (identifier) @name)
   (subscript_expression (identifier) @name) (subscript_argument_list (identifier) @name)
   (initializer_list (identifier) @name) (initializer_pair (identifier) @name)
   (condition_clause (identifier) @name) (case_statement (identifier) @name)
   (return_statement (identifier) @name) (throw_statement (identifier) @name)
   (delete_expression (identifier) @name) (sizeof_expression (identifier) @name)
   (cast_expression (identifier) @name) (template_argument_list (identifier) @name)
   (expression_statement (identifier) @name) (concatenated_string (identifier) @name)
   (field_expression (identifier) @name) (for_statement (identifier) @name)
   (for_range_loop (identifier) @name) (lambda_capture_specifier (identifier) @name)
   (static_assert_declaration (identifier) @name) (co_return_statement (identifier) @name)
   (co_await_expression (identifier) @name) (fold_expression (identifier) @name)])
  @reference.use (#match? @name "^(k[A-Z]|[A-Z])"))
(([(assignment_expression right: (identifier) @name) (init_declarator value: (identifier) @name)
   (optional_parameter_declaration default_value: (identifier) @name)
   (field_declaration default_value: (identifier) @name) (enumerator value: (identifier) @name)
   (array_declarator size: (identifier) @name) (bitfield_clause (identifier) @name)])
  @reference.use (#match? @name "^(k[A-Z]|[A-Z])"))
((qualified_identifier scope: (_) @qualifier name: (identifier) @name) @reference.use (#match? @name "^(k[A-Z]|[A-Z])"))
; a static member read through its class, whatever its spelling (LuaSpanContext::description):
; a local is never qualified
((qualified_identifier scope: (_) @qualifier name: (identifier) @name) @reference.use (#match? @qualifier "^[A-Z]"))
((qualified_identifier scope: (namespace_identifier) @name) @reference.use (#match? @name "^[A-Z]"))
((field_expression argument: (_) @qualifier field: (field_identifier) @name) @reference.use
  (#match? @name "^(k[A-Z]|[A-Z])"))

; what a type is given to: a variable, member or parameter declared with it, held raw, by
; pointer, by reference or in a smart pointer (a range-for's variable too), or one given a new
; instance of it (Store store(cfg), Store* store = ..., const Store& s, for (Store& s : all),
; std::unique_ptr<Store> store_, auto s = new Store(), auto s = std::make_unique<Store>(),
; store_ = new Store())
(declaration type: [(type_identifier) @name (template_type name: (type_identifier) @name)
           (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]
  declarator: [(identifier) @binds (pointer_declarator declarator: (identifier) @binds) (reference_declarator (identifier) @binds)
               (init_declarator declarator: [(identifier) @binds (pointer_declarator declarator: (identifier) @binds) (reference_declarator (identifier) @binds)])]) @reference.type
(parameter_declaration type: [(type_identifier) @name (template_type name: (type_identifier) @name)
           (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]
  declarator: [(identifier) @binds (pointer_declarator declarator: (identifier) @binds) (reference_declarator (identifier) @binds)]) @reference.type
(optional_parameter_declaration type: [(type_identifier) @name (template_type name: (type_identifier) @name)
           (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]
  declarator: [(identifier) @binds (pointer_declarator declarator: (identifier) @binds) (reference_declarator (identifier) @binds)]) @reference.type
(for_range_loop type: [(type_identifier) @name (template_type name: (type_identifier) @name)
           (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]
  declarator: [(identifier) @binds (pointer_declarator declarator: (identifier) @binds) (reference_declarator (identifier) @binds)]) @reference.type
(field_declaration type: [(type_identifier) @name (template_type name: (type_identifier) @name)
           (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]
  declarator: [(field_identifier) @binds (pointer_declarator declarator: (field_identifier) @binds)
                 (reference_declarator (field_identifier) @binds)]) @reference.type
(([(declaration type: [(template_type name: (type_identifier) @holder
              arguments: (template_argument_list . (type_descriptor type: [(type_identifier) @name (qualified_identifier scope: (_) @qualifier name: (type_identifier) @name)])))
            (qualified_identifier name: (template_type name: (type_identifier) @holder
              arguments: (template_argument_list . (type_descriptor type: [(type_identifier) @name (qualified_identifier scope: (_) @qualifier name: (type_identifier) @name)]))))]
     declarator: [(identifier) @binds (init_declarator declarator: (identifier) @binds)])
   (parameter_declaration type: [(template_type name: (type_identifier) @holder
              arguments: (template_argument_list . (type_descriptor type: [(type_identifier) @name (qualified_identifier scope: (_) @qualifier name: (type_identifier) @name)])))
            (qualified_identifier name: (template_type name: (type_identifier) @holder
              arguments: (template_argument_list . (type_descriptor type: [(type_identifier) @name (qualified_identifier scope: (_) @qualifier name: (type_identifier) @name)]))))]
     declarator: [(identifier) @binds (reference_declarator (identifier) @binds)])
   (field_declaration type: [(template_type name: (type_identifier) @holder
              arguments: (template_argument_list . (type_descriptor type: [(type_identifier) @name (qualified_identifier scope: (_) @qualifier name: (type_identifier) @name)])))
            (qualified_identifier name: (template_type name: (type_identifier) @holder
              arguments: (template_argument_list . (type_descriptor type: [(type_identifier) @name (qualified_identifier scope: (_) @qualifier name: (type_identifier) @name)]))))]
     declarator: (field_identifier) @binds)]
  @reference.type) (#match? @holder "^(unique_ptr|shared_ptr|weak_ptr)$"))
(init_declarator
  declarator: [(identifier) @binds (pointer_declarator declarator: (identifier) @binds)]
  value: (new_expression type: [(type_identifier) @name (template_type name: (type_identifier) @name)
           (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]) @reference.new)
(assignment_expression
  left: [(identifier) (field_expression)] @binds
  right: (new_expression type: [(type_identifier) @name (template_type name: (type_identifier) @name)
           (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]) @reference.new)
((init_declarator declarator: (identifier) @binds value: (call_expression function: [(template_function name: (identifier) @make
     arguments: (template_argument_list . (type_descriptor type: [(type_identifier) @name (qualified_identifier scope: (_) @qualifier name: (type_identifier) @name)])))
   (qualified_identifier name: (template_function name: (identifier) @make
     arguments: (template_argument_list . (type_descriptor type: [(type_identifier) @name (qualified_identifier scope: (_) @qualifier name: (type_identifier) @name)]))))]) @reference.new)
  (#match? @make "^make_(unique|shared)$"))
; ... declared with a type qualified twice (a::b::Store s, const a::b::Store& s), given an
; instance by a constructor call or braces (auto s = Store(cfg), auto s = acme::Store{cfg}),
; assigned a smart pointer (store_ = std::make_unique<Store>()), or declared in a body as
; T x(y) (which parses as a function declaration: a prototype binds its own name, harmlessly)
([(declaration type: (qualified_identifier name: (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)]))
    declarator: [(identifier) @binds (pointer_declarator declarator: (identifier) @binds) (reference_declarator (identifier) @binds)
                 (init_declarator declarator: [(identifier) @binds (pointer_declarator declarator: (identifier) @binds) (reference_declarator (identifier) @binds)])])
  (parameter_declaration type: (qualified_identifier name: (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)]))
    declarator: [(identifier) @binds (pointer_declarator declarator: (identifier) @binds) (reference_declarator (identifier) @binds)])
  (field_declaration type: (qualified_identifier name: (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)]))
    declarator: [(field_identifier) @binds (pointer_declarator declarator: (field_identifier) @binds) (reference_declarator (field_identifier) @binds)])
  (declaration type: [(type_identifier) @name (template_type name: (type_identifier) @name)
           (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]
    declarator: (function_declarator declarator: (identifier) @binds))] @reference.type)
(init_declarator
  declarator: [(identifier) @binds (pointer_declarator declarator: (identifier) @binds)]
  value: (compound_literal_expression type: [(type_identifier) @name (template_type name: (type_identifier) @name)
            (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]) @reference.new)
((init_declarator
  declarator: [(identifier) @binds (pointer_declarator declarator: (identifier) @binds)]
  value: (call_expression function: [(identifier) @name (qualified_identifier scope: (_) @qualifier name: (identifier) @name)]) @reference.call)
  (#match? @name "^[A-Z]"))
((assignment_expression left: [(identifier) (field_expression)] @binds right: (call_expression function: [(template_function name: (identifier) @make
     arguments: (template_argument_list . (type_descriptor type: [(type_identifier) @name (qualified_identifier scope: (_) @qualifier name: (type_identifier) @name)])))
   (qualified_identifier name: (template_function name: (identifier) @make
     arguments: (template_argument_list . (type_descriptor type: [(type_identifier) @name (qualified_identifier scope: (_) @qualifier name: (type_identifier) @name)]))))]) @reference.new)
  (#match? @make "^make_(unique|shared)$"))

; heritage: a base class or interface gives the class deriving from it (@binds): a member of the
; base reached through the derived class, its instances or its own code is the base's
([(class_specifier name: (_) @binds (base_class_clause [(type_identifier) @name (template_type name: (type_identifier) @name)
                                                       (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]))
  (struct_specifier name: (_) @binds (base_class_clause [(type_identifier) @name (template_type name: (type_identifier) @name)
                                                        (qualified_identifier scope: (_) @qualifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]))]) @reference.type

; what a container holds and what takes one of its elements: the variables, members and
; parameters declared with a template type whose first argument is a class (@holds: its elements
; are @name; ClientPool<ThriftClient<T>> *pool_, std::vector<Order> orders), and a variable of
; deduced type set to one of them (@element of @container: auto c = pool_->Pop(),
; auto& o = orders[0], auto o = orders.front(), for (auto& o : orders)); a smart pointer holds
; one instance, and binds above
((_ type: [(template_type name: (type_identifier) @holder
             arguments: (template_argument_list . (type_descriptor type: [(type_identifier) @name (template_type name: (type_identifier) @name)
                                                                         (qualified_identifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])])))
           (qualified_identifier name: (template_type name: (type_identifier) @holder
             arguments: (template_argument_list . (type_descriptor type: [(type_identifier) @name (template_type name: (type_identifier) @name)
                                                                         (qualified_identifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]))))]
   declarator: [(identifier) @holds (field_identifier) @holds
                (pointer_declarator declarator: [(identifier) (field_identifier)] @holds)
                (reference_declarator [(identifier) (field_identifier)] @holds)
                (init_declarator declarator: [(identifier) @holds (pointer_declarator declarator: (identifier) @holds)])])
  (#not-match? @holder "^(unique_ptr|shared_ptr|weak_ptr|optional|function|atomic|pair|tuple|variant|(unordered_|flat_)?(multi)?map)$"))
; a map's values (@holds_values: the second argument of std::map<K, Order>, unordered_map...) and
; what reads one (@values_of: auto o = by_id[k], auto o = by_id.at(k), for (auto& [k, o] : by_id))
((_ type: [(template_type name: (type_identifier) @holder
             arguments: (template_argument_list (_) . (type_descriptor type: [(type_identifier) @name (template_type name: (type_identifier) @name)
                                                                             (qualified_identifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])])))
           (qualified_identifier name: (template_type name: (type_identifier) @holder
             arguments: (template_argument_list (_) . (type_descriptor type: [(type_identifier) @name (template_type name: (type_identifier) @name)
                                                                             (qualified_identifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])]))))]
   declarator: [(identifier) @holds_values (field_identifier) @holds_values
                (pointer_declarator declarator: [(identifier) (field_identifier)] @holds_values)
                (reference_declarator [(identifier) (field_identifier)] @holds_values)
                (init_declarator declarator: [(identifier) @holds_values (pointer_declarator declarator: (identifier) @holds_values)])])
  (#match? @holder "^(unordered_|flat_)?(multi)?map$"))
(declaration type: (placeholder_type_specifier)
  declarator: (init_declarator
    declarator: [(identifier) @element (pointer_declarator declarator: (identifier) @element) (reference_declarator (identifier) @element)]
    value: [(subscript_expression argument: [(identifier) (field_expression)] @values_of)
            ((call_expression function: (field_expression argument: [(identifier) (field_expression)] @values_of field: (field_identifier) @_at))
             (#eq? @_at "at"))]))
(for_range_loop type: (placeholder_type_specifier)
  declarator: [(structured_binding_declarator (identifier) . (identifier) @element .)
               (reference_declarator (structured_binding_declarator (identifier) . (identifier) @element .))]
  right: [(identifier) (field_expression)] @values_of)
(declaration type: (placeholder_type_specifier)
  declarator: (init_declarator
    declarator: [(identifier) @element (pointer_declarator declarator: (identifier) @element) (reference_declarator (identifier) @element)]
    value: [(call_expression function: (field_expression argument: [(identifier) (field_expression)] @container))
            (subscript_expression argument: [(identifier) (field_expression)] @container)]))
(for_range_loop type: (placeholder_type_specifier)
  declarator: [(identifier) @element (pointer_declarator declarator: (identifier) @element) (reference_declarator (identifier) @element)]
  right: [(identifier) (field_expression)] @container)
; what a function of the file returns (@returns_of, its class as @name, raw, by pointer or
; reference) and a variable of deduced type set by a call of it (auto w = MakeWorker(cfg))
[(function_definition type: [(type_identifier) @name (qualified_identifier name: (type_identifier) @name)]
   declarator: [(function_declarator declarator: (identifier) @returns_of)
                (pointer_declarator declarator: (function_declarator declarator: (identifier) @returns_of))
                (reference_declarator (function_declarator declarator: (identifier) @returns_of))])
 (declaration type: [(type_identifier) @name (qualified_identifier name: (type_identifier) @name)]
   declarator: [(function_declarator declarator: (identifier) @returns_of)
                (pointer_declarator declarator: (function_declarator declarator: (identifier) @returns_of))
                (reference_declarator (function_declarator declarator: (identifier) @returns_of))])]
(declaration type: (placeholder_type_specifier)
  declarator: (init_declarator
    declarator: [(identifier) @element (pointer_declarator declarator: (identifier) @element) (reference_declarator (identifier) @element)]
    value: (call_expression function: [(identifier) (qualified_identifier !scope name: (identifier))] @returned_by)))
