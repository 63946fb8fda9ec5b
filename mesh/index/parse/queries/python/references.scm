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

; what a collection holds and what takes one of its elements: the parameters, class attributes and
; variables annotated as a list, set, sequence or homogeneous tuple of a class (@holds: its elements
; are @name; orders: list[Order], items: Sequence[models.Item], self.orders: List[Order] = [],
; parts: tuple[Part, ...]), and a variable set to one of them (@element of @container: for o in
; self.orders, for i, o in enumerate(orders), for o in sorted(orders, key=...), [o.total() for o in
; orders], o = orders[0], o = orders.pop()). A generic is a collection by its name only: Optional[Order],
; type[Order], Callable[[Order], None], ClassVar[Order], Annotated[Order, ...] and a project's own
; Repository[Order] hold one value or none, and a tuple[Order, Customer] holds two classes. A dict's
; or a Mapping's values are @holds_values (by_id: dict[str, Order], Mapping[Key, models.Order],
; defaultdict[str, Order]: the second argument), and @element of @values_of reads one (o = by_id[k],
; o = by_id.get(k) (an Optional, with the same members), .pop(k), .setdefault(k, d); for k, o in
; by_id.items(); for o in by_id.values(); a comprehension over either): iterating a mapping gives its
; keys, a read the list way, and _navigation.py keys its values apart, so they find nothing.
; Elements of a builtin (list[str]) or a typing generic take no class, nor a map's values of a
; type variable (Mapping[K, V]).
; (A pattern per parent: one rooted at any node, tried on every node, made the whole query a fifth slower.)
((assignment left: [(identifier) (attribute)] @holds
   type: (type [(generic_type (identifier) @holder (type_parameter . (type [(identifier) @name (attribute attribute: (identifier) @name) (generic_type . (identifier) @name)]) .))
         (generic_type (identifier) @holder (type_parameter . (type [(identifier) @name (attribute attribute: (identifier) @name) (generic_type . (identifier) @name)]) . (type (ellipsis)) .))
         (subscript value: [(identifier) @holder (attribute attribute: (identifier) @holder)] subscript: [(identifier) @name (attribute attribute: (identifier) @name)] .)]))
  (#match? @holder "^([Ll]ist|[Ss]et|frozenset|FrozenSet|AbstractSet|Mutable(Set|Sequence)|Sequence|Collection|(Async)?Iter(able|ator)|Reversible|[Dd]eque|[Tt]uple)$")
  (#match? @name "^[A-Z]") (#not-match? @name "^(Optional|Union|Any|Callable|Type|Literal|Annotated|ClassVar|Final|List|Dict|Set|FrozenSet|Tuple|Sequence|Mapping|Iterable|Iterator)$"))
((typed_parameter . (identifier) @holds
   type: (type [(generic_type (identifier) @holder (type_parameter . (type [(identifier) @name (attribute attribute: (identifier) @name) (generic_type . (identifier) @name)]) .))
         (generic_type (identifier) @holder (type_parameter . (type [(identifier) @name (attribute attribute: (identifier) @name) (generic_type . (identifier) @name)]) . (type (ellipsis)) .))
         (subscript value: [(identifier) @holder (attribute attribute: (identifier) @holder)] subscript: [(identifier) @name (attribute attribute: (identifier) @name)] .)]))
  (#match? @holder "^([Ll]ist|[Ss]et|frozenset|FrozenSet|AbstractSet|Mutable(Set|Sequence)|Sequence|Collection|(Async)?Iter(able|ator)|Reversible|[Dd]eque|[Tt]uple)$")
  (#match? @name "^[A-Z]") (#not-match? @name "^(Optional|Union|Any|Callable|Type|Literal|Annotated|ClassVar|Final|List|Dict|Set|FrozenSet|Tuple|Sequence|Mapping|Iterable|Iterator)$"))
((typed_default_parameter name: (identifier) @holds
   type: (type [(generic_type (identifier) @holder (type_parameter . (type [(identifier) @name (attribute attribute: (identifier) @name) (generic_type . (identifier) @name)]) .))
         (generic_type (identifier) @holder (type_parameter . (type [(identifier) @name (attribute attribute: (identifier) @name) (generic_type . (identifier) @name)]) . (type (ellipsis)) .))
         (subscript value: [(identifier) @holder (attribute attribute: (identifier) @holder)] subscript: [(identifier) @name (attribute attribute: (identifier) @name)] .)]))
  (#match? @holder "^([Ll]ist|[Ss]et|frozenset|FrozenSet|AbstractSet|Mutable(Set|Sequence)|Sequence|Collection|(Async)?Iter(able|ator)|Reversible|[Dd]eque|[Tt]uple)$")
  (#match? @name "^[A-Z]") (#not-match? @name "^(Optional|Union|Any|Callable|Type|Literal|Annotated|ClassVar|Final|List|Dict|Set|FrozenSet|Tuple|Sequence|Mapping|Iterable|Iterator)$"))
((assignment left: [(identifier) (attribute)] @holds_values
   type: (type [(generic_type (identifier) @holder (type_parameter . (type) . (type [(identifier) @name (attribute attribute: (identifier) @name) (generic_type . (identifier) @name)]) .))
         (subscript value: [(identifier) @holder (attribute attribute: (identifier) @holder)] subscript: (_) . subscript: [(identifier) @name (attribute attribute: (identifier) @name)] .)]))
  (#match? @holder "^([Dd]ict|DefaultDict|defaultdict|OrderedDict|(Mutable)?Mapping|ChainMap)$")
  (#match? @name "^[A-Z]") (#not-match? @name "^(Optional|Union|Any|Callable|Type|Literal|Annotated|ClassVar|Final|List|Dict|Set|FrozenSet|Tuple|Sequence|Mapping|Iterable|Iterator|AbstractSet|Mutable(Set|Sequence|Mapping)|Collection|Deque|DefaultDict|OrderedDict|Counter|ChainMap|[A-Z])$"))
((typed_parameter . (identifier) @holds_values
   type: (type [(generic_type (identifier) @holder (type_parameter . (type) . (type [(identifier) @name (attribute attribute: (identifier) @name) (generic_type . (identifier) @name)]) .))
         (subscript value: [(identifier) @holder (attribute attribute: (identifier) @holder)] subscript: (_) . subscript: [(identifier) @name (attribute attribute: (identifier) @name)] .)]))
  (#match? @holder "^([Dd]ict|DefaultDict|defaultdict|OrderedDict|(Mutable)?Mapping|ChainMap)$")
  (#match? @name "^[A-Z]") (#not-match? @name "^(Optional|Union|Any|Callable|Type|Literal|Annotated|ClassVar|Final|List|Dict|Set|FrozenSet|Tuple|Sequence|Mapping|Iterable|Iterator|AbstractSet|Mutable(Set|Sequence|Mapping)|Collection|Deque|DefaultDict|OrderedDict|Counter|ChainMap|[A-Z])$"))
((typed_default_parameter name: (identifier) @holds_values
   type: (type [(generic_type (identifier) @holder (type_parameter . (type) . (type [(identifier) @name (attribute attribute: (identifier) @name) (generic_type . (identifier) @name)]) .))
         (subscript value: [(identifier) @holder (attribute attribute: (identifier) @holder)] subscript: (_) . subscript: [(identifier) @name (attribute attribute: (identifier) @name)] .)]))
  (#match? @holder "^([Dd]ict|DefaultDict|defaultdict|OrderedDict|(Mutable)?Mapping|ChainMap)$")
  (#match? @name "^[A-Z]") (#not-match? @name "^(Optional|Union|Any|Callable|Type|Literal|Annotated|ClassVar|Final|List|Dict|Set|FrozenSet|Tuple|Sequence|Mapping|Iterable|Iterator|AbstractSet|Mutable(Set|Sequence|Mapping)|Collection|Deque|DefaultDict|OrderedDict|Counter|ChainMap|[A-Z])$"))
([(for_statement left: (identifier) @element right: [(identifier) (attribute)] @container)
  (for_in_clause left: (identifier) @element right: [(identifier) (attribute)] @container)
  (assignment left: (identifier) @element !type
    right: (subscript value: [(identifier) (attribute)] @container subscript: [(integer) (unary_operator) (identifier) (binary_operator) (attribute)] .))])
((assignment left: (identifier) @element !type
   right: (call function: (attribute object: [(identifier) (attribute)] @container attribute: (identifier) @taken)))
  (#match? @taken "^(pop|popleft)$"))
(([(for_statement left: (identifier) @element right: (call function: (identifier) @taken arguments: (argument_list . [(identifier) (attribute)] @container)))
   (for_in_clause left: (identifier) @element right: (call function: (identifier) @taken arguments: (argument_list . [(identifier) (attribute)] @container)))])
  (#match? @taken "^(sorted|reversed)$"))
(([(for_statement left: (pattern_list . (identifier) . (identifier) @element .) right: (call function: (identifier) @taken arguments: (argument_list . [(identifier) (attribute)] @container)))
   (for_in_clause left: (pattern_list . (identifier) . (identifier) @element .) right: (call function: (identifier) @taken arguments: (argument_list . [(identifier) (attribute)] @container)))])
  (#eq? @taken "enumerate"))
(assignment left: (identifier) @element !type
  right: (subscript value: [(identifier) (attribute)] @values_of
    subscript: [(identifier) (attribute) (string) (concatenated_string) (call) (integer) (subscript) (tuple) (binary_operator)] .))
((assignment left: (identifier) @element !type
   right: (call function: (attribute object: [(identifier) (attribute)] @values_of attribute: (identifier) @taken)))
  (#match? @taken "^(get|pop|setdefault)$"))
(([(for_statement left: (identifier) @element right: (call function: (attribute object: [(identifier) (attribute)] @values_of attribute: (identifier) @taken)))
   (for_in_clause left: (identifier) @element right: (call function: (attribute object: [(identifier) (attribute)] @values_of attribute: (identifier) @taken)))])
  (#eq? @taken "values"))
(([(for_statement left: [(pattern_list . (identifier) . (identifier) @element .) (tuple_pattern . (identifier) . (identifier) @element .)]
     right: (call function: (attribute object: [(identifier) (attribute)] @values_of attribute: (identifier) @taken)))
   (for_in_clause left: [(pattern_list . (identifier) . (identifier) @element .) (tuple_pattern . (identifier) . (identifier) @element .)]
     right: (call function: (attribute object: [(identifier) (attribute)] @values_of attribute: (identifier) @taken)))])
  (#eq? @taken "items"))
