; Ruby: the uses of names that code navigation keeps (read by mesh/index/parse/_navigation.py).
; @name is the name used, @qualifier what is written before it, @reference.<kind> the use.
; A bare identifier (`total`) may be a local variable as well as a call: called with arguments,
; parentheses or a block (`total(1)`, `total 1`, `total do ... end`) it is a call; read bare where a
; value goes (`[n, total]`, `total + 1`, `return total`, `items.size`) it is a call of the method
; unless the method around it (or the file's top level) has a local of that name, which
; mesh/index/parse/_ruby.py takes out (parameters, assignments, block and loop variables, rescue).
;; declares: class.name module.name assignment.left operator_assignment.left left_assignment_list
;; declares: method.name singleton_method.name alias

; instantiations: Order.new(...), Billing::Invoice.new
((call receiver: (constant) @name method: (identifier) @_new) @reference.new (#eq? @_new "new"))
((call receiver: (scope_resolution scope: (_) @qualifier name: (constant) @name) method: (identifier) @_new)
  @reference.new (#eq? @_new "new"))

; calls: obj.m, obj&.m(1), self.m, Mod::Klass.m, Order.where(...), Kernel-style Integer("1")
((call receiver: (_) @qualifier method: [(identifier) (constant)] @name) @reference.call
  (#not-eq? @name "new"))
; bare calls with arguments or a block; require/load are imports, include/extend/prepend name a
; mixin (a type below), attr_* and the visibility calls declare (#not-any-of? is not applied by
; py-tree-sitter 0.26: #not-match? says it)
((call !receiver method: [(identifier) (constant)] @name) @reference.call
  (#not-match? @name "^(require|require_relative|load|autoload|include|extend|prepend|alias_method|attr_reader|attr_writer|attr_accessor|private|protected|public|private_constant|public_constant|module_function|private_class_method|public_class_method)$"))

; bare reads where a value goes: a call of a method of self unless a local has the name
([(array (identifier) @name) (binary (identifier) @name) (argument_list (identifier) @name)
  (pair value: (identifier) @name) (parenthesized_statements (identifier) @name)
  (interpolation (identifier) @name) (conditional (identifier) @name) (unary (identifier) @name)
  (assignment right: (identifier) @name) (operator_assignment right: (identifier) @name)
  (element_reference object: (identifier) @name) (call receiver: (identifier) @name)
  (body_statement (identifier) @name) (then (identifier) @name) (else (identifier) @name)
  (if condition: (identifier) @name) (unless condition: (identifier) @name) (while condition: (identifier) @name)
  (if_modifier condition: (identifier) @name) (unless_modifier condition: (identifier) @name)
  (block_body (identifier) @name) (begin (identifier) @name)] @reference.call)

; types: superclasses, mixins, rescued exceptions
(superclass (constant) @name) @reference.type
(superclass (scope_resolution scope: (_) @qualifier name: (constant) @name)) @reference.type
((call !receiver method: (identifier) @_mixin arguments: (argument_list (constant) @name)) @reference.type
  (#any-of? @_mixin "include" "extend" "prepend"))
((call !receiver method: (identifier) @_mixin
    arguments: (argument_list (scope_resolution scope: (_) @qualifier name: (constant) @name))) @reference.type
  (#any-of? @_mixin "include" "extend" "prepend"))
(exceptions (constant) @name) @reference.type
(exceptions (scope_resolution scope: (_) @qualifier name: (constant) @name)) @reference.type

; values: constants, classes and modules read (LIMIT, Config::TIMEOUT, ::Top)
(scope_resolution scope: (_) @qualifier name: (constant) @name) @reference.use
((constant) @name @reference.use)

; what an instantiation gives its type to: repo = OrderRepo.new, @client = Billing::Client.new(...)
((assignment left: (_) @binds right: (call receiver: (constant) @name method: (identifier) @_new) @reference.new)
  (#eq? @_new "new"))
((assignment
   left: (_) @binds
   right: (call receiver: (scope_resolution scope: (_) @qualifier name: (constant) @name) method: (identifier) @_new)
     @reference.new)
  (#eq? @_new "new"))
((operator_assignment left: (_) @binds right: (call receiver: (constant) @name method: (identifier) @_new) @reference.new)
  (#eq? @_new "new"))
((operator_assignment
   left: (_) @binds
   right: (call receiver: (scope_resolution scope: (_) @qualifier name: (constant) @name) method: (identifier) @_new)
     @reference.new)
  (#eq? @_new "new"))
; a parameter defaulting to an instantiation: def initialize(repo = OrderRepo.new, client: Billing::Client.new)
((optional_parameter name: (_) @binds value: (call receiver: (constant) @name method: (identifier) @_new) @reference.new)
  (#eq? @_new "new"))
((optional_parameter
   name: (_) @binds
   value: (call receiver: (scope_resolution scope: (_) @qualifier name: (constant) @name) method: (identifier) @_new)
     @reference.new)
  (#eq? @_new "new"))
((keyword_parameter name: (_) @binds value: (call receiver: (constant) @name method: (identifier) @_new) @reference.new)
  (#eq? @_new "new"))
((keyword_parameter
   name: (_) @binds
   value: (call receiver: (scope_resolution scope: (_) @qualifier name: (constant) @name) method: (identifier) @_new)
     @reference.new)
  (#eq? @_new "new"))
; a constant naming another class or module stands for it: Rules = Pricing, Store = Shop::Store
(assignment left: (constant) @binds right: (constant) @name @reference.use)
(assignment left: (constant) @binds right: (scope_resolution scope: (_) @qualifier name: (constant) @name) @reference.use)
; a rescued exception of one class: rescue Billing::Error => e
(rescue
  exceptions: (exceptions . (constant) @name .) @reference.type
  variable: (exception_variable (identifier) @binds))
(rescue
  exceptions: (exceptions . (scope_resolution scope: (_) @qualifier name: (constant) @name) .) @reference.type
  variable: (exception_variable (identifier) @binds))

; heritage: a base class or interface gives the class deriving from it (@binds): a member of the
; base reached through the derived class, its instances or its own code is the base's
(class name: (constant) @binds superclass: (superclass (constant) @name)) @reference.type
(class name: (constant) @binds superclass: (superclass (scope_resolution scope: (_) @qualifier name: (constant) @name))) @reference.type
