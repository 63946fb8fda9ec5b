; TypeScript and TSX (both grammars compile this file: no JSX node type may be named in a pattern):
; the uses of names that code navigation keeps (read by mesh/index/parse/_navigation.py).
; @name is the name used, @qualifier what is written before it, @reference.<kind> the use.
;; declares: function_declaration.name generator_function_declaration.name function_expression.name
;; declares: generator_function.name function_signature.name class_declaration.name class.name
;; declares: abstract_class_declaration.name interface_declaration.name type_alias_declaration.name
;; declares: enum_declaration.name internal_module.name module.name nested_identifier.object
;; declares: variable_declarator.name required_parameter.pattern optional_parameter.pattern
;; declares: assignment_pattern.left rest_pattern array_pattern pair_pattern.value
;; declares: arrow_function.parameter catch_clause.parameter for_in_statement.left assignment_expression.left
;; declares: type_parameter.name mapped_type_clause.name infer_type index_signature.name type_predicate.name
;; declares: required_parameter.name optional_parameter.name
;; inside: import_statement import_alias export_clause jsx_closing_element

; calls (require("x") imports: none): f(), f<T>(), obj.m(), this.m(), super.m(), a?.m(), tag`template`, @Get("/"); this.repo!.find()
; is qualified this.repo (a pattern first in the file wins over a later one of the same kind and name)
((call_expression function: (identifier) @name) @reference.call (#not-eq? @name "require"))
(call_expression
  function: (member_expression
    object: (non_null_expression (_) @qualifier)
    property: (property_identifier) @name)) @reference.call
(call_expression
  function: (member_expression object: (_) @qualifier property: (property_identifier) @name)) @reference.call

; decorators name a function: @Input, @core.Input (a called one, @Input(), is a call above)
(decorator (identifier) @name) @reference.call
(decorator (member_expression object: (_) @qualifier property: (property_identifier) @name)) @reference.call

; instantiations: new Order(), new Box<T>(), new models.Order, and TSX elements <OrderList />, <Layout.Header>
; (written with "<" and a name field, the one shape of JSX that TypeScript's grammar can compile)
(new_expression constructor: (identifier) @name) @reference.new
(new_expression
  constructor: (member_expression object: (_) @qualifier property: (property_identifier) @name)) @reference.new
((_ "<" . name: (identifier) @name) @reference.new (#match? @name "^[A-Z]"))
(_ "<" . name: (member_expression object: (_) @qualifier property: (property_identifier) @name)) @reference.new

; types: annotations, parameter, field and return types, generic arguments, implements and extends
; lists, as / satisfies / <T>x, type predicates, aliases; a base class; the right side of instanceof
(type_identifier) @name @reference.type
(nested_type_identifier module: (_) @qualifier name: (type_identifier) @name) @reference.type
(extends_clause value: (identifier) @name) @reference.type
(extends_clause value: (member_expression object: (_) @qualifier property: (property_identifier) @name)) @reference.type
(binary_expression operator: "instanceof" right: (identifier) @name) @reference.type
(binary_expression
  operator: "instanceof"
  right: (member_expression object: (_) @qualifier property: (property_identifier) @name)) @reference.type

; values: a class, an enum member or a constant read (capitalised: Config, Color.Red, MAX_SIZE, { Order },
; typeof Config)
((identifier) @name @reference.use (#match? @name "^[A-Z]"))
((shorthand_property_identifier) @name @reference.use (#match? @name "^[A-Z]"))
((member_expression object: (_) @qualifier property: (property_identifier) @name) @reference.use
  (#match? @name "^[A-Z]"))

; what a use gives its type to: const store = new Store(), this.db = new db.UserDb(), cache = new Map() in a
; class; let order: Order, (repo: Repository<Order>), constructor(private readonly api: client.Api)
(variable_declarator
  name: (identifier) @binds
  value: (new_expression
    constructor: [(identifier) @name (member_expression object: (_) @qualifier property: (property_identifier) @name)]) @reference.new)
(assignment_expression
  left: (_) @binds
  right: (new_expression
    constructor: [(identifier) @name (member_expression object: (_) @qualifier property: (property_identifier) @name)]) @reference.new)
(public_field_definition
  name: (property_identifier) @binds
  value: (new_expression
    constructor: [(identifier) @name (member_expression object: (_) @qualifier property: (property_identifier) @name)]) @reference.new)
(variable_declarator
  name: (identifier) @binds
  type: (type_annotation [
    (type_identifier) @name
    (nested_type_identifier module: (_) @qualifier name: (type_identifier) @name)
    (generic_type name: [(type_identifier) @name (nested_type_identifier module: (_) @qualifier name: (type_identifier) @name)])
  ]) @reference.type)
(required_parameter
  pattern: (identifier) @binds
  type: (type_annotation [
    (type_identifier) @name
    (nested_type_identifier module: (_) @qualifier name: (type_identifier) @name)
    (generic_type name: [(type_identifier) @name (nested_type_identifier module: (_) @qualifier name: (type_identifier) @name)])
  ]) @reference.type)
(optional_parameter
  pattern: (identifier) @binds
  type: (type_annotation [
    (type_identifier) @name
    (nested_type_identifier module: (_) @qualifier name: (type_identifier) @name)
    (generic_type name: [(type_identifier) @name (nested_type_identifier module: (_) @qualifier name: (type_identifier) @name)])
  ]) @reference.type)
(public_field_definition
  name: (property_identifier) @binds
  type: (type_annotation [
    (type_identifier) @name
    (nested_type_identifier module: (_) @qualifier name: (type_identifier) @name)
    (generic_type name: [(type_identifier) @name (nested_type_identifier module: (_) @qualifier name: (type_identifier) @name)])
  ]) @reference.type)

; an interface or type literal member (orders: OrderService); x as Cart (not <Cart>x: TSX lacks it); a
; narrowing by instanceof (if (x instanceof Cart), this.store instanceof Store)
(property_signature
  name: (property_identifier) @binds
  type: (type_annotation [
    (type_identifier) @name
    (nested_type_identifier module: (_) @qualifier name: (type_identifier) @name)
    (generic_type name: [(type_identifier) @name (nested_type_identifier module: (_) @qualifier name: (type_identifier) @name)])
  ]) @reference.type)
(variable_declarator
  name: (identifier) @binds
  value: [(as_expression (_) [
    (type_identifier) @name
    (nested_type_identifier module: (_) @qualifier name: (type_identifier) @name)
    (generic_type name: [(type_identifier) @name (nested_type_identifier module: (_) @qualifier name: (type_identifier) @name)])
  ])] @reference.type)
(binary_expression
  left: [(identifier) (member_expression)] @binds
  operator: "instanceof"
  right: [(identifier) @name (member_expression object: (_) @qualifier property: (property_identifier) @name)]) @reference.type

; a function or method passed as a value: app.get("/", listOrders), items.map(this.render) (a bare
; lower-case name only when the file imports or defines it: else it is most likely a variable)
(arguments (member_expression object: (_) @qualifier property: (property_identifier) @name) @reference.use)
(arguments (identifier) @name @known @reference.use)

; heritage: a base class or interface gives the class deriving from it (@binds): a member of the
; base reached through the derived class, its instances or its own code is the base's
([(class_declaration name: (_) @binds (class_heritage [(extends_clause value: (identifier) @name)
                                                      (implements_clause (type_identifier) @name)]))
  (abstract_class_declaration name: (_) @binds (class_heritage [(extends_clause value: (identifier) @name)
                                                               (implements_clause (type_identifier) @name)]))
  (interface_declaration name: (_) @binds (extends_type_clause type: (type_identifier) @name))]) @reference.type
([(class_declaration name: (_) @binds (class_heritage (extends_clause value: (member_expression object: (_) @qualifier property: (property_identifier) @name))))
  (abstract_class_declaration name: (_) @binds (class_heritage (extends_clause value: (member_expression object: (_) @qualifier property: (property_identifier) @name))))]) @reference.type

; what a collection holds and what takes one of its elements: the fields, parameters (constructor
; parameter properties too), interface members and let/const declared as an array or a set of a
; class (@holds: its elements are @name; orders: Order[], readonly Order[], Array<Order>,
; ReadonlyArray<m.Order>, Set<Order>), or as a map of one (@holds_values: its values are @name,
; the last type argument; Map<string, Order>, ReadonlyMap, WeakMap, Record<string, Order>), and an
; untyped variable or callback parameter set to an element (@element of @container: for (const o of
; this.orders), for (const o of orders.values()), const o = orders[0], const o = orders.find(...)!,
; orders.forEach(o => ...), orders.map(function (o) {...})) or to one of a map's values (@element of
; @values_of: const o = byId.get(id)!, const o = record[k], for (const [k, o] of byId), of
; byId.entries(), for (const o of byId.values()), byId.forEach((o, k) => ...), for (const o of
; Object.values(record)), for (const [k, o] of Object.entries(record))). A generic type is a
; collection by its name only (Promise<Order>, Observable<Order>, Partial<Order>, Repository<Order>
; hold one value or none). A for-of over a Map kept whole is a [key, value] pair, an element read of
; the map, which holds none (_navigation.py keys a map's values apart). A collection of collections
; (Map<string, Order[]>, Array<Promise<Order>>) holds no class. A pattern per parent, not one rooted
; at any node: those are tried on every node.
((public_field_definition name: (property_identifier) @holds
   type: (type_annotation [(array_type [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])]) (readonly_type (array_type [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])]))
                         (generic_type name: (type_identifier) @holder type_arguments: (type_arguments . [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])] .))]))
  (#match? @holder "^(Readonly)?(Array|Set)$|^(Async)?Iterable(Iterator)?$")
  (#not-match? @name "^(Readonly)?(Array|Set|Map)$|^(Weak(Map|Set)|Record|Partial|Required|Readonly|Pick|Omit|Promise)$"))
((property_signature name: (property_identifier) @holds
   type: (type_annotation [(array_type [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])]) (readonly_type (array_type [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])]))
                         (generic_type name: (type_identifier) @holder type_arguments: (type_arguments . [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])] .))]))
  (#match? @holder "^(Readonly)?(Array|Set)$|^(Async)?Iterable(Iterator)?$")
  (#not-match? @name "^(Readonly)?(Array|Set|Map)$|^(Weak(Map|Set)|Record|Partial|Required|Readonly|Pick|Omit|Promise)$"))
((required_parameter pattern: (identifier) @holds
   type: (type_annotation [(array_type [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])]) (readonly_type (array_type [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])]))
                         (generic_type name: (type_identifier) @holder type_arguments: (type_arguments . [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])] .))]))
  (#match? @holder "^(Readonly)?(Array|Set)$|^(Async)?Iterable(Iterator)?$")
  (#not-match? @name "^(Readonly)?(Array|Set|Map)$|^(Weak(Map|Set)|Record|Partial|Required|Readonly|Pick|Omit|Promise)$"))
((optional_parameter pattern: (identifier) @holds
   type: (type_annotation [(array_type [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])]) (readonly_type (array_type [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])]))
                         (generic_type name: (type_identifier) @holder type_arguments: (type_arguments . [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])] .))]))
  (#match? @holder "^(Readonly)?(Array|Set)$|^(Async)?Iterable(Iterator)?$")
  (#not-match? @name "^(Readonly)?(Array|Set|Map)$|^(Weak(Map|Set)|Record|Partial|Required|Readonly|Pick|Omit|Promise)$"))
((variable_declarator name: (identifier) @holds
   type: (type_annotation [(array_type [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])]) (readonly_type (array_type [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])]))
                         (generic_type name: (type_identifier) @holder type_arguments: (type_arguments . [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])] .))]))
  (#match? @holder "^(Readonly)?(Array|Set)$|^(Async)?Iterable(Iterator)?$")
  (#not-match? @name "^(Readonly)?(Array|Set|Map)$|^(Weak(Map|Set)|Record|Partial|Required|Readonly|Pick|Omit|Promise)$"))
((public_field_definition name: (property_identifier) @holds_values
   type: (type_annotation (generic_type name: (type_identifier) @holder type_arguments: (type_arguments . (_) . [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])] .))))
  (#match? @holder "^(Readonly)?Map$|^(WeakMap|Record)$")
  (#not-match? @name "^(Readonly)?(Array|Set|Map)$|^(Weak(Map|Set)|Record|Partial|Required|Readonly|Pick|Omit|Promise)$"))
((property_signature name: (property_identifier) @holds_values
   type: (type_annotation (generic_type name: (type_identifier) @holder type_arguments: (type_arguments . (_) . [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])] .))))
  (#match? @holder "^(Readonly)?Map$|^(WeakMap|Record)$")
  (#not-match? @name "^(Readonly)?(Array|Set|Map)$|^(Weak(Map|Set)|Record|Partial|Required|Readonly|Pick|Omit|Promise)$"))
((required_parameter pattern: (identifier) @holds_values
   type: (type_annotation (generic_type name: (type_identifier) @holder type_arguments: (type_arguments . (_) . [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])] .))))
  (#match? @holder "^(Readonly)?Map$|^(WeakMap|Record)$")
  (#not-match? @name "^(Readonly)?(Array|Set|Map)$|^(Weak(Map|Set)|Record|Partial|Required|Readonly|Pick|Omit|Promise)$"))
((optional_parameter pattern: (identifier) @holds_values
   type: (type_annotation (generic_type name: (type_identifier) @holder type_arguments: (type_arguments . (_) . [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])] .))))
  (#match? @holder "^(Readonly)?Map$|^(WeakMap|Record)$")
  (#not-match? @name "^(Readonly)?(Array|Set|Map)$|^(Weak(Map|Set)|Record|Partial|Required|Readonly|Pick|Omit|Promise)$"))
((variable_declarator name: (identifier) @holds_values
   type: (type_annotation (generic_type name: (type_identifier) @holder type_arguments: (type_arguments . (_) . [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name) (generic_type name: [(type_identifier) @name (nested_type_identifier name: (type_identifier) @name)])] .))))
  (#match? @holder "^(Readonly)?Map$|^(WeakMap|Record)$")
  (#not-match? @name "^(Readonly)?(Array|Set|Map)$|^(Weak(Map|Set)|Record|Partial|Required|Readonly|Pick|Omit|Promise)$"))
(for_in_statement left: (identifier) @element operator: "of" right: [(identifier) (member_expression)] @container)
((for_in_statement left: (identifier) @element operator: "of"
   right: (call_expression function: (member_expression object: [(identifier) (member_expression)] @container property: (property_identifier) @taken)))
  (#eq? @taken "values"))
(variable_declarator name: (identifier) @element !type
  value: [(subscript_expression object: [(identifier) (member_expression)] @container index: [(number) (identifier) (string) (unary_expression) (binary_expression) (member_expression)])
          (non_null_expression (subscript_expression object: [(identifier) (member_expression)] @container index: [(number) (identifier) (string) (unary_expression) (binary_expression) (member_expression)]))])
((variable_declarator name: (identifier) @element !type
   value: [(call_expression function: (member_expression object: [(identifier) (member_expression)] @container property: (property_identifier) @taken))
           (non_null_expression (call_expression function: (member_expression object: [(identifier) (member_expression)] @container property: (property_identifier) @taken)))])
  (#match? @taken "^(find|findLast|at|pop|shift)$"))
((call_expression function: (member_expression object: [(identifier) (member_expression)] @container property: (property_identifier) @taken)
   arguments: (arguments . [(arrow_function parameter: (identifier) @element)
                            (arrow_function parameters: (formal_parameters . (required_parameter pattern: (identifier) @element !type)))
                            (function_expression parameters: (formal_parameters . (required_parameter pattern: (identifier) @element !type)))]))
  (#match? @taken "^(forEach|map|flatMap|filter|find|findLast|findIndex|findLastIndex|some|every)$"))
(variable_declarator name: (identifier) @element !type
  value: [(subscript_expression object: [(identifier) (member_expression)] @values_of)
          (non_null_expression (subscript_expression object: [(identifier) (member_expression)] @values_of))])
((variable_declarator name: (identifier) @element !type
   value: [(call_expression function: (member_expression object: [(identifier) (member_expression)] @values_of property: (property_identifier) @taken))
           (non_null_expression (call_expression function: (member_expression object: [(identifier) (member_expression)] @values_of property: (property_identifier) @taken)))])
  (#eq? @taken "get"))
(for_in_statement left: (array_pattern "," . (identifier) @element . "]") operator: "of" right: [(identifier) (member_expression)] @values_of)
((for_in_statement left: (identifier) @element operator: "of"
   right: (call_expression function: (member_expression object: [(identifier) (member_expression)] @values_of property: (property_identifier) @taken)))
  (#eq? @taken "values"))
((for_in_statement left: (array_pattern "," . (identifier) @element . "]") operator: "of"
   right: (call_expression function: (member_expression object: [(identifier) (member_expression)] @values_of property: (property_identifier) @taken)))
  (#eq? @taken "entries"))
((for_in_statement left: (identifier) @element operator: "of"
   right: (call_expression function: (member_expression object: (identifier) @_object property: (property_identifier) @taken)
     arguments: (arguments . [(identifier) (member_expression)] @values_of .)))
  (#eq? @_object "Object") (#eq? @taken "values"))
((for_in_statement left: (array_pattern "," . (identifier) @element . "]") operator: "of"
   right: (call_expression function: (member_expression object: (identifier) @_object property: (property_identifier) @taken)
     arguments: (arguments . [(identifier) (member_expression)] @values_of .)))
  (#eq? @_object "Object") (#eq? @taken "entries"))
((call_expression function: (member_expression object: [(identifier) (member_expression)] @values_of property: (property_identifier) @taken)
   arguments: (arguments . [(arrow_function parameter: (identifier) @element)
                            (arrow_function parameters: (formal_parameters . (required_parameter pattern: (identifier) @element !type)))
                            (function_expression parameters: (formal_parameters . (required_parameter pattern: (identifier) @element !type)))]))
  (#eq? @taken "forEach"))
