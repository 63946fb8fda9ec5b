; JavaScript (and JSX): the uses of names that code navigation keeps (read by mesh/index/parse/_navigation.py).
; @name is the name used, @qualifier what is written before it, @reference.<kind> the use.
;; declares: function_declaration.name generator_function_declaration.name function_expression.name
;; declares: generator_function.name class_declaration.name class.name variable_declarator.name
;; declares: formal_parameters assignment_pattern.left rest_pattern array_pattern pair_pattern.value
;; declares: arrow_function.parameter catch_clause.parameter for_in_statement.left assignment_expression.left
;; inside: import_statement export_clause jsx_closing_element

; calls (require("x") imports: none): f(), obj.m(), this.m(), super.m(), a?.m(), ns.f`template`, mixin(Base) in an extends clause
((call_expression function: (identifier) @name) @reference.call (#not-eq? @name "require"))
(call_expression
  function: (member_expression object: (_) @qualifier property: (property_identifier) @name)) @reference.call

; decorators name a function: @observable, @action.bound (a called one, @Get("/"), is a call above)
(decorator (identifier) @name) @reference.call
(decorator (member_expression object: (_) @qualifier property: (property_identifier) @name)) @reference.call

; instantiations: new Order(), new models.Order, and JSX elements <OrderList />, <Layout.Header>
(new_expression constructor: (identifier) @name) @reference.new
(new_expression
  constructor: (member_expression object: (_) @qualifier property: (property_identifier) @name)) @reference.new
((_ "<" . name: (identifier) @name) @reference.new (#match? @name "^[A-Z]"))
(_ "<" . name: (member_expression object: (_) @qualifier property: (property_identifier) @name)) @reference.new

; types: a base class, the right side of instanceof
(class_heritage (identifier) @name) @reference.type
(class_heritage (member_expression object: (_) @qualifier property: (property_identifier) @name)) @reference.type
(binary_expression operator: "instanceof" right: (identifier) @name) @reference.type
(binary_expression
  operator: "instanceof"
  right: (member_expression object: (_) @qualifier property: (property_identifier) @name)) @reference.type

; values: a class, an enum member or a constant read (capitalised: Config, Color.Red, MAX_SIZE, { Order })
((identifier) @name @reference.use (#match? @name "^[A-Z]"))
((shorthand_property_identifier) @name @reference.use (#match? @name "^[A-Z]"))
((member_expression object: (_) @qualifier property: (property_identifier) @name) @reference.use
  (#match? @name "^[A-Z]"))

; what a use gives its type to: const store = new Store(), this.db = new db.UserDb(), cache = new Map() in a class
(variable_declarator
  name: (identifier) @binds
  value: (new_expression
    constructor: [(identifier) @name (member_expression object: (_) @qualifier property: (property_identifier) @name)]) @reference.new)
(assignment_expression
  left: (_) @binds
  right: (new_expression
    constructor: [(identifier) @name (member_expression object: (_) @qualifier property: (property_identifier) @name)]) @reference.new)
(field_definition
  property: (property_identifier) @binds
  value: (new_expression
    constructor: [(identifier) @name (member_expression object: (_) @qualifier property: (property_identifier) @name)]) @reference.new)

; a narrowing by instanceof: if (x instanceof Cart), this.store instanceof Store
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
(class_declaration name: (_) @binds (class_heritage (identifier) @name)) @reference.type
(class_declaration name: (_) @binds (class_heritage (member_expression object: (_) @qualifier property: (property_identifier) @name))) @reference.type
