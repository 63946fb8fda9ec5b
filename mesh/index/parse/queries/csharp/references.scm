; C#: the uses of names that code navigation keeps (read by mesh/index/parse/_navigation.py).
; @name is the name used, @qualifier what is written before it, @reference.<kind> the use, @binds
; the field, property, parameter or variable the use gives its type to.
; The grammar's supertypes tell a name's role: (type/identifier) is an identifier written where a
; type goes, (lvalue_expression/identifier) one read as a value; a declared name or a namespace's
; name is neither. Values count when capitalised (Order, Color.Red, MaxSize, order.Status):
; lower-case names are locals and parameters. The target of a using alias (using Order =
; Acme.Orders.Order;) is written as a type: mesh/index/parse/_csharp.py drops what a using
; directive's line holds (an `inside:` directive would cost every match a walk up its ancestors).
;; declares: class_declaration.name struct_declaration.name interface_declaration.name record_declaration.name
;; declares: enum_declaration.name delegate_declaration.name method_declaration.name constructor_declaration.name
;; declares: destructor_declaration.name local_function_statement.name property_declaration.name
;; declares: event_declaration.name variable_declarator.name parameter.name enum_member_declaration.name
;; declares: type_parameter.name catch_declaration.name declaration_pattern.name declaration_expression.name
;; declares: recursive_pattern.name tuple_element.name tuple_pattern.name foreach_statement.left
;; declares: argument.name attribute_argument.name assignment_expression.left labeled_statement goto_statement
;; declares: from_clause.name let_clause query_continuation

; calls: F(), F<T>(), obj.M(), Type.Static(), this.M(), base.M(), obj?.M(), await x.MAsync()
; (nameof(X) is no call: X is a value read)
((invocation_expression function: (identifier) @name) @reference.call (#not-eq? @name "nameof"))
(invocation_expression function: (generic_name . (identifier) @name)) @reference.call
(invocation_expression function: (member_access_expression expression: _ @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])) @reference.call
(invocation_expression
  function: (conditional_access_expression condition: (_) @qualifier (member_binding_expression name: [(identifier) @name (generic_name . (identifier) @name)]))) @reference.call

; instantiations: new Order(...), new List<Order> { }, new Acme.Order(), and what a target-typed
; new() instantiates: the type it is assigned to (Order o = new(); Dictionary<K, V> Cache { get; } = new();)
(object_creation_expression type: [(identifier) @name (generic_name . (identifier) @name)]) @reference.new
(object_creation_expression type: (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])) @reference.new
(variable_declaration
  type: [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])]
  (variable_declarator name: (identifier) @binds (implicit_object_creation_expression) @reference.new))
(property_declaration
  type: [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])]
  name: (identifier) @binds
  value: (implicit_object_creation_expression) @reference.new)

; types: wherever the grammar expects one (fields, properties, parameters, return types, locals,
; generic arguments and constraints, base lists, casts, as / is, typeof, default, catch, foreach,
; patterns), plain, generic or qualified (Acme.Orders.Order: the qualifier is Acme.Orders)
((type/identifier) @name @reference.type (#not-eq? @name "dynamic"))
(type/generic_name . (identifier) @name) @reference.type
(type/qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)]) @reference.type
(type/alias_qualified_name alias: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)]) @reference.type
; ... and where the grammar writes a type without its supertype: Order?, Order[], Order*, a record's bases
[(nullable_type type: [(identifier) @name (generic_name . (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])])
 (array_type type: [(identifier) @name (generic_name . (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])])
 (pointer_type type: [(identifier) @name (generic_name . (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])])] @reference.type
(base_list [(identifier) @name (generic_name . (identifier) @name)]) @reference.type
(base_list (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])) @reference.type
; attributes are types: [HttpGet], [ApiController], [Acme.Audit(...)]
(attribute name: [(identifier) @name (generic_name . (identifier) @name)]) @reference.type
(attribute name: (qualified_name qualifier: (_) @qualifier name: (identifier) @name)) @reference.type
; x is Order (a bare name after `is`), explicit interface members (void IDisposable.Dispose()), where T : ...
(is_pattern_expression pattern: (constant_pattern (identifier) @name)) @reference.type
(explicit_interface_specifier [(identifier) @name (generic_name . (identifier) @name)]) @reference.type
(type_parameter_constraints_clause . (identifier) @name) @reference.type

; values: a class, an enum member, a constant or a property read (Color.Red, Config.Timeout,
; MaxSize, nameof(Order), order.Status, order?.Total), a generic method passed as a value
((lvalue_expression/identifier) @name @reference.use (#match? @name "^[A-Z]"))
((lvalue_expression/generic_name . (identifier) @name) @reference.use (#match? @name "^[A-Z]"))
((member_access_expression expression: _ @qualifier name: (identifier) @name) @reference.use
  (#match? @name "^[A-Z]"))
((conditional_access_expression condition: (_) @qualifier (member_binding_expression name: (identifier) @name))
  @reference.use (#match? @name "^[A-Z]"))

; what a type is given to: a field, property, parameter (a primary constructor's too), local or
; pattern or foreach variable declared with it, or one assigned an instance of it (IOrderService orders,
; private readonly Store _store, var o = new Order(), _store = new Store(), x is Order o)
(variable_declaration type: [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])]
  (variable_declarator name: (identifier) @binds)) @reference.type
(parameter type: [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])]
  name: (identifier) @binds) @reference.type
(property_declaration type: [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])]
  name: (identifier) @binds) @reference.type
(foreach_statement type: [(identifier) @name (generic_name . (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])]
  left: (identifier) @binds) @reference.type
(declaration_pattern type: [(identifier) @name (generic_name . (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])]
  name: (identifier) @binds) @reference.type
(variable_declarator name: (identifier) @binds (object_creation_expression type: [(identifier) @name (generic_name . (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])]) @reference.new)
(assignment_expression left: (_) @binds right: (object_creation_expression type: [(identifier) @name (generic_name . (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])]) @reference.new)
; ... an out variable, a catch clause's exception, a property pattern's designation, and a local
; given its value by a cast or `as` (TryGet(out Order o), catch (IOException ex), x is Order { } o,
; var o = (Order)x, var o = x as Order)
(declaration_expression type: [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])]
  name: (identifier) @binds) @reference.type
(catch_declaration type: [(identifier) @name (generic_name . (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])]
  name: (identifier) @binds) @reference.type
(recursive_pattern type: [(identifier) @name (generic_name . (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])]
  name: (identifier) @binds) @reference.type
(variable_declarator name: (identifier) @binds [(cast_expression type: [(identifier) @name (generic_name . (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])])
   (as_expression right: [(identifier) @name (generic_name . (identifier) @name)
         (qualified_name qualifier: (_) @qualifier name: [(identifier) @name (generic_name . (identifier) @name)])])] @reference.type)

; heritage: a base class or interface gives the class deriving from it (@binds): a member of the
; base reached through the derived class, its instances or its own code is the base's
([(class_declaration name: (_) @binds (base_list [(identifier) @name (generic_name . (identifier) @name)]))
  (struct_declaration name: (_) @binds (base_list [(identifier) @name (generic_name . (identifier) @name)]))
  (record_declaration name: (_) @binds (base_list [(identifier) @name (generic_name . (identifier) @name)]))
  (interface_declaration name: (_) @binds (base_list [(identifier) @name (generic_name . (identifier) @name)]))]) @reference.type

; what a collection holds and what takes one of its elements: the fields, properties, locals and
; parameters (a primary constructor's too) declared as an array or a collection of a class (@holds:
; its elements are @name; Order[] orders, List<Order> _orders, IEnumerable<Acme.Order>? Orders),
; and a var set to one of them (@element of @container: foreach (var o in _orders), var o = orders[0],
; var o = this.orders.First(), var o = await query.SingleAsync()). A generic type is a collection by
; its name only: Task<Order>, Lazy<Order>, ILogger<Order>, IOptions<Order>, Func<Order>, Expression<..>
; and a project's own Repository<Order> hold one value or none, so the holders are the collections of
; the base library (and EF's DbSet) taking one type argument. A dictionary's values are
; @holds_values (Dictionary<string, Order> _byId, IReadOnlyDictionary<Key, Order>?, the second type
; argument), and @element of @values_of reads one (var o = _byId[k], d.TryGetValue(k, out var o),
; d.TryRemove(k, out var o), var o = d.GetValueOrDefault(k), .GetOrAdd(k, ...), foreach (var o in
; d.Values), the value of foreach (var (k, o) in d)): foreach and First() on a dictionary read it the
; list way, a KeyValuePair<K, V>, and _navigation.py keys its values apart, so they find nothing. A
; collection of tasks, pairs or collections holds no class. (A pattern per parent, not one rooted at
; any node: those are tried on every node.)
((variable_declaration type: [(array_type type: [(identifier) @name (generic_name . (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])]) (nullable_type type: (array_type type: [(identifier) @name (generic_name . (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])]))
         (generic_name . (identifier) @holder (type_argument_list . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)) (qualified_name name: (generic_name . (identifier) @holder (type_argument_list . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)))
         (nullable_type type: [(generic_name . (identifier) @holder (type_argument_list . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)) (qualified_name name: (generic_name . (identifier) @holder (type_argument_list . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)))])]
   (variable_declarator name: (identifier) @holds))
  (#match? @holder "^(I?List|IReadOnlyList|I?Collection|IReadOnlyCollection|I(Async)?Enumerable|IOrderedEnumerable|I(Ordered)?Queryable|(Hash|Sorted|I|IReadOnly)Set|Queue|Stack|LinkedList|ReadOnlyCollection|ObservableCollection|I?Immutable(List|Array|HashSet|SortedSet|Queue|Stack)|Concurrent(Bag|Queue|Stack)|BlockingCollection|DbSet|(ReadOnly)?(Span|Memory))$")
  (#not-match? @name "^(Task|ValueTask|Nullable|KeyValuePair|Tuple|ValueTuple|Func|Action|Lazy|I?List|I?Enumerable|I?Collection|(Hash)?Set|Dictionary|IDictionary)$"))
((property_declaration type: [(array_type type: [(identifier) @name (generic_name . (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])]) (nullable_type type: (array_type type: [(identifier) @name (generic_name . (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])]))
         (generic_name . (identifier) @holder (type_argument_list . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)) (qualified_name name: (generic_name . (identifier) @holder (type_argument_list . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)))
         (nullable_type type: [(generic_name . (identifier) @holder (type_argument_list . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)) (qualified_name name: (generic_name . (identifier) @holder (type_argument_list . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)))])]
   name: (identifier) @holds)
  (#match? @holder "^(I?List|IReadOnlyList|I?Collection|IReadOnlyCollection|I(Async)?Enumerable|IOrderedEnumerable|I(Ordered)?Queryable|(Hash|Sorted|I|IReadOnly)Set|Queue|Stack|LinkedList|ReadOnlyCollection|ObservableCollection|I?Immutable(List|Array|HashSet|SortedSet|Queue|Stack)|Concurrent(Bag|Queue|Stack)|BlockingCollection|DbSet|(ReadOnly)?(Span|Memory))$")
  (#not-match? @name "^(Task|ValueTask|Nullable|KeyValuePair|Tuple|ValueTuple|Func|Action|Lazy|I?List|I?Enumerable|I?Collection|(Hash)?Set|Dictionary|IDictionary)$"))
((parameter type: [(array_type type: [(identifier) @name (generic_name . (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])]) (nullable_type type: (array_type type: [(identifier) @name (generic_name . (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])]))
         (generic_name . (identifier) @holder (type_argument_list . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)) (qualified_name name: (generic_name . (identifier) @holder (type_argument_list . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)))
         (nullable_type type: [(generic_name . (identifier) @holder (type_argument_list . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)) (qualified_name name: (generic_name . (identifier) @holder (type_argument_list . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)))])]
   name: (identifier) @holds)
  (#match? @holder "^(I?List|IReadOnlyList|I?Collection|IReadOnlyCollection|I(Async)?Enumerable|IOrderedEnumerable|I(Ordered)?Queryable|(Hash|Sorted|I|IReadOnly)Set|Queue|Stack|LinkedList|ReadOnlyCollection|ObservableCollection|I?Immutable(List|Array|HashSet|SortedSet|Queue|Stack)|Concurrent(Bag|Queue|Stack)|BlockingCollection|DbSet|(ReadOnly)?(Span|Memory))$")
  (#not-match? @name "^(Task|ValueTask|Nullable|KeyValuePair|Tuple|ValueTuple|Func|Action|Lazy|I?List|I?Enumerable|I?Collection|(Hash)?Set|Dictionary|IDictionary)$"))
((variable_declaration type: [(generic_name . (identifier) @holder (type_argument_list . (_) . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)) (qualified_name name: (generic_name . (identifier) @holder (type_argument_list . (_) . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)))
         (nullable_type type: [(generic_name . (identifier) @holder (type_argument_list . (_) . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)) (qualified_name name: (generic_name . (identifier) @holder (type_argument_list . (_) . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)))])]
   (variable_declarator name: (identifier) @holds_values))
  (#match? @holder "^(I?Dictionary|IReadOnlyDictionary|(Concurrent|Sorted|ReadOnly|Frozen)Dictionary|SortedList|I?Immutable(Sorted)?Dictionary)$")
  (#not-match? @name "^(Task|ValueTask|Nullable|KeyValuePair|Tuple|ValueTuple|Func|Action|Lazy|I?List|I?Enumerable|I?Collection|(Hash)?Set|Dictionary|IDictionary)$"))
((property_declaration type: [(generic_name . (identifier) @holder (type_argument_list . (_) . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)) (qualified_name name: (generic_name . (identifier) @holder (type_argument_list . (_) . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)))
         (nullable_type type: [(generic_name . (identifier) @holder (type_argument_list . (_) . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)) (qualified_name name: (generic_name . (identifier) @holder (type_argument_list . (_) . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)))])]
   name: (identifier) @holds_values)
  (#match? @holder "^(I?Dictionary|IReadOnlyDictionary|(Concurrent|Sorted|ReadOnly|Frozen)Dictionary|SortedList|I?Immutable(Sorted)?Dictionary)$")
  (#not-match? @name "^(Task|ValueTask|Nullable|KeyValuePair|Tuple|ValueTuple|Func|Action|Lazy|I?List|I?Enumerable|I?Collection|(Hash)?Set|Dictionary|IDictionary)$"))
((parameter type: [(generic_name . (identifier) @holder (type_argument_list . (_) . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)) (qualified_name name: (generic_name . (identifier) @holder (type_argument_list . (_) . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)))
         (nullable_type type: [(generic_name . (identifier) @holder (type_argument_list . (_) . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)) (qualified_name name: (generic_name . (identifier) @holder (type_argument_list . (_) . [(identifier) @name (generic_name . (identifier) @name) (nullable_type type: (identifier) @name) (qualified_name name: [(identifier) @name (generic_name . (identifier) @name)])] .)))])]
   name: (identifier) @holds_values)
  (#match? @holder "^(I?Dictionary|IReadOnlyDictionary|(Concurrent|Sorted|ReadOnly|Frozen)Dictionary|SortedList|I?Immutable(Sorted)?Dictionary)$")
  (#not-match? @name "^(Task|ValueTask|Nullable|KeyValuePair|Tuple|ValueTuple|Func|Action|Lazy|I?List|I?Enumerable|I?Collection|(Hash)?Set|Dictionary|IDictionary)$"))
(foreach_statement type: (implicit_type) left: (identifier) @element right: [(identifier) (member_access_expression)] @container)
(variable_declaration type: (implicit_type)
  (variable_declarator name: (identifier) @element
    (element_access_expression expression: [(identifier) (member_access_expression)] @container
      subscript: (bracketed_argument_list . (argument [(integer_literal) (identifier) (prefix_unary_expression) (binary_expression) (member_access_expression)]) .))))
((variable_declaration type: (implicit_type)
   (variable_declarator name: (identifier) @element
     [(invocation_expression function: (member_access_expression expression: [(identifier) (member_access_expression)] @container name: (identifier) @taken))
      (await_expression (invocation_expression function: (member_access_expression expression: [(identifier) (member_access_expression)] @container name: (identifier) @taken)))]))
  (#match? @taken "^(First|Last|Single|ElementAt)(OrDefault)?(Async)?$|^(Find|FindLast|Dequeue|Pop|Peek|MinBy|MaxBy)$"))
(variable_declaration type: (implicit_type)
  (variable_declarator name: (identifier) @element
    (element_access_expression expression: [(identifier) (member_access_expression)] @values_of
      subscript: (bracketed_argument_list . (argument [(identifier) (member_access_expression) (string_literal) (interpolated_string_expression)
                                                (invocation_expression) (integer_literal) (element_access_expression) (tuple_expression)]) .))))
((variable_declaration type: (implicit_type)
   (variable_declarator name: (identifier) @element
     (invocation_expression function: (member_access_expression expression: [(identifier) (member_access_expression)] @values_of name: (identifier) @taken))))
  (#match? @taken "^(GetValueOrDefault|GetOrAdd|AddOrUpdate)$"))
((invocation_expression function: (member_access_expression expression: [(identifier) (member_access_expression)] @values_of name: (identifier) @taken)
   arguments: (argument_list (argument (declaration_expression type: (implicit_type) name: (identifier) @element)) .))
  (#match? @taken "^(TryGetValue|TryRemove)$"))
((foreach_statement type: (implicit_type) left: (identifier) @element
   right: (member_access_expression expression: [(identifier) (member_access_expression)] @values_of name: (identifier) @_values))
  (#eq? @_values "Values"))
(foreach_statement type: (implicit_type) left: (tuple_pattern . (_) . (identifier) @element .) right: [(identifier) (member_access_expression)] @values_of)
