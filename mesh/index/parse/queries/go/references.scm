; Go: the uses of names that code navigation keeps (read by mesh/index/parse/_navigation.py).
; @name is the name used, @qualifier what is written before it, @reference.<kind> the use.
; Identifiers are matched where an expression stands, never everywhere: the grammar puts the names
; that := and range declare in the same expression_list as the values other statements read.
; So no pattern reaches a name that a const, var, func, parameter, field, label, import or package
; clause declares; only the blanket type pattern needs a directive (no ";; inside:": an ancestor walk
; per name costs more than the query).
;; declares: type_spec.name type_alias.name

; calls: f(), pkg.F(), obj.M(), T.M(x), (f)(), and generic calls f[T](), pkg.F[T]() (Go's built-in
; functions and conversions to its predeclared types are no definition to navigate to)
((call_expression function: (identifier) @name) @reference.call
 (#not-match? @name "^(append|cap|clear|close|complex|copy|delete|imag|len|make|max|min|new|panic|print|println|real|recover|bool|byte|complex(64|128)|float(32|64)|u?int(8|16|32|64)?|rune|string|uintptr)$"))
(call_expression function: (parenthesized_expression (identifier) @name)) @reference.call
(call_expression
  function: (selector_expression operand: (_) @qualifier field: (field_identifier) @name)) @reference.call
(call_expression function: (index_expression operand: (identifier) @name)) @reference.call
(call_expression
  function: (index_expression
    operand: (selector_expression operand: (_) @qualifier field: (field_identifier) @name))) @reference.call
(type_conversion_expression type: (generic_type type: (type_identifier) @name)) @reference.call
(type_conversion_expression
  type: (generic_type type: (qualified_type package: (_) @qualifier name: (type_identifier) @name))) @reference.call
(type_instantiation_expression type: (type_identifier) @name) @reference.call
(type_instantiation_expression
  type: (qualified_type package: (_) @qualifier name: (type_identifier) @name)) @reference.call

; instantiations: T{...}, &pkg.T{...}, T[int]{...}, new(T), new(pkg.T)
(composite_literal type: (type_identifier) @name) @reference.new
(composite_literal type: (qualified_type package: (_) @qualifier name: (type_identifier) @name)) @reference.new
(composite_literal type: (generic_type type: (type_identifier) @name)) @reference.new
(composite_literal
  type: (generic_type type: (qualified_type package: (_) @qualifier name: (type_identifier) @name))) @reference.new
((call_expression
  function: (identifier) @_new
  arguments: (argument_list . (type_identifier) @name)) @reference.new
 (#eq? @_new "new"))
((call_expression
  function: (identifier) @_new
  arguments: (argument_list . (qualified_type package: (_) @qualifier name: (type_identifier) @name))) @reference.new
 (#eq? @_new "new"))

; types: parameters, results, fields, embedded types, generic arguments, constraints, assertions,
; type switches, conversions, receivers (not Go's predeclared types)
(qualified_type package: (_) @qualifier name: (type_identifier) @name) @reference.type
((type_identifier) @name @reference.type
 (#not-match? @name "^(any|bool|byte|comparable|complex(64|128)|error|float(32|64)|u?int(8|16|32|64)?|rune|string|uintptr)$"))

; values: capitalised names read (constants, package variables, functions passed as values) and
; capitalised members of a package or type (pb.Version, Color.String)
((selector_expression operand: (_) @qualifier field: (field_identifier) @name) @reference.use
 (#match? @name "^[A-Z]"))
([
  (argument_list (identifier) @name)
  (binary_expression (identifier) @name)
  (unary_expression operand: (identifier) @name)
  (selector_expression operand: (identifier) @name)
  (index_expression (identifier) @name)
  (slice_expression (identifier) @name)
  (parenthesized_expression (identifier) @name)
  (type_assertion_expression operand: (identifier) @name)
  (type_conversion_expression operand: (identifier) @name)
  (variadic_argument (identifier) @name)
  (keyed_element value: (literal_element (identifier) @name))
  (literal_value (literal_element (identifier) @name))
  (composite_literal
    type: [(map_type) (slice_type) (array_type) (implicit_length_array_type)]
    body: (literal_value (keyed_element key: (literal_element (identifier) @name))))
  (return_statement (expression_list (identifier) @name))
  (assignment_statement (expression_list (identifier) @name))
  (short_var_declaration right: (expression_list (identifier) @name))
  (var_spec value: (expression_list (identifier) @name))
  (const_spec value: (expression_list (identifier) @name))
  (expression_case value: (expression_list (identifier) @name))
  (if_statement condition: (identifier) @name)
  (for_statement (identifier) @name)
  (for_clause condition: (identifier) @name)
  (range_clause right: (identifier) @name)
  (receive_statement right: (identifier) @name)
  (expression_switch_statement value: (identifier) @name)
  (type_switch_statement value: (identifier) @name)
  (send_statement (identifier) @name)
  (inc_statement (identifier) @name)
  (dec_statement (identifier) @name)
  (array_type length: (identifier) @name)
  (expression_statement (identifier) @name)
] @reference.use
 (#match? @name "^[A-Z]"))
; a lower-case name read where a value goes, when the file defines it at top level (@known: a
; package constant, variable or function passed as a value, not a local)
([
  (argument_list (identifier) @name)
  (binary_expression (identifier) @name)
  (unary_expression operand: (identifier) @name)
  (keyed_element value: (literal_element (identifier) @name))
  (literal_value (literal_element (identifier) @name))
  (return_statement (expression_list (identifier) @name))
  (assignment_statement right: (expression_list (identifier) @name))
  (short_var_declaration right: (expression_list (identifier) @name))
  (var_spec value: (expression_list (identifier) @name))
  (expression_case value: (expression_list (identifier) @name))
] @reference.use @known
 (#match? @name "^[a-z_]"))

; what a declaration gives its type to (T, *T, T[X], pkg.T, *pkg.T): receivers and parameters
; (c *Cart, doc store.Priced), var v T, struct fields (rewritten by _go.py to the receiver's field,
; s.store), v := T{...} / &T{...} / new(T), v, ok := x.(*T), switch v := x.(type) { case *T: }
((parameter_declaration
  name: (identifier) @binds
  type: [
    (type_identifier) @name
    (pointer_type (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (pointer_type (generic_type type: (type_identifier) @name))
  ]) @reference.type
 (#not-match? @name "^(any|bool|byte|comparable|complex(64|128)|error|float(32|64)|u?int(8|16|32|64)?|rune|string|uintptr)$"))
(parameter_declaration
  name: (identifier) @binds
  type: [
    (qualified_type package: (_) @qualifier name: (type_identifier) @name)
    (pointer_type (qualified_type package: (_) @qualifier name: (type_identifier) @name))
    (generic_type type: (qualified_type package: (_) @qualifier name: (type_identifier) @name))
    (pointer_type (generic_type type: (qualified_type package: (_) @qualifier name: (type_identifier) @name)))
  ]) @reference.type
((var_spec
  name: (identifier) @binds
  type: [
    (type_identifier) @name
    (pointer_type (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (pointer_type (generic_type type: (type_identifier) @name))
  ]) @reference.type
 (#not-match? @name "^(any|bool|byte|comparable|complex(64|128)|error|float(32|64)|u?int(8|16|32|64)?|rune|string|uintptr)$"))
(var_spec
  name: (identifier) @binds
  type: [
    (qualified_type package: (_) @qualifier name: (type_identifier) @name)
    (pointer_type (qualified_type package: (_) @qualifier name: (type_identifier) @name))
    (generic_type type: (qualified_type package: (_) @qualifier name: (type_identifier) @name))
    (pointer_type (generic_type type: (qualified_type package: (_) @qualifier name: (type_identifier) @name)))
  ]) @reference.type
((field_declaration
  name: (field_identifier) @binds
  type: [
    (type_identifier) @name
    (pointer_type (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (pointer_type (generic_type type: (type_identifier) @name))
  ]) @reference.type
 (#not-match? @name "^(any|bool|byte|comparable|complex(64|128)|error|float(32|64)|u?int(8|16|32|64)?|rune|string|uintptr)$"))
(field_declaration
  name: (field_identifier) @binds
  type: [
    (qualified_type package: (_) @qualifier name: (type_identifier) @name)
    (pointer_type (qualified_type package: (_) @qualifier name: (type_identifier) @name))
    (generic_type type: (qualified_type package: (_) @qualifier name: (type_identifier) @name))
    (pointer_type (generic_type type: (qualified_type package: (_) @qualifier name: (type_identifier) @name)))
  ]) @reference.type
; (one name given one value: x := T{}, var x = &pkg.T{}, x = new(T), s.store = &Store{})
(short_var_declaration
  left: (expression_list . (identifier) @binds .)
  right: (expression_list . [
    (composite_literal type: [(type_identifier) @name (generic_type type: (type_identifier) @name)])
    (unary_expression operand: (composite_literal type: [(type_identifier) @name (generic_type type: (type_identifier) @name)]))
    (composite_literal type: [
      (qualified_type package: (_) @qualifier name: (type_identifier) @name)
      (generic_type type: (qualified_type package: (_) @qualifier name: (type_identifier) @name))])
    (unary_expression operand: (composite_literal type: [
      (qualified_type package: (_) @qualifier name: (type_identifier) @name)
      (generic_type type: (qualified_type package: (_) @qualifier name: (type_identifier) @name))]))
  ] @reference.new .))
(assignment_statement
  left: (expression_list . [(identifier) (selector_expression)] @binds .)
  right: (expression_list . [
    (composite_literal type: [(type_identifier) @name (generic_type type: (type_identifier) @name)])
    (unary_expression operand: (composite_literal type: [(type_identifier) @name (generic_type type: (type_identifier) @name)]))
    (composite_literal type: [
      (qualified_type package: (_) @qualifier name: (type_identifier) @name)
      (generic_type type: (qualified_type package: (_) @qualifier name: (type_identifier) @name))])
    (unary_expression operand: (composite_literal type: [
      (qualified_type package: (_) @qualifier name: (type_identifier) @name)
      (generic_type type: (qualified_type package: (_) @qualifier name: (type_identifier) @name))]))
  ] @reference.new .))
(var_spec
  name: (identifier) @binds .
  value: (expression_list . [
    (composite_literal type: [(type_identifier) @name (generic_type type: (type_identifier) @name)])
    (unary_expression operand: (composite_literal type: [(type_identifier) @name (generic_type type: (type_identifier) @name)]))
    (composite_literal type: [
      (qualified_type package: (_) @qualifier name: (type_identifier) @name)
      (generic_type type: (qualified_type package: (_) @qualifier name: (type_identifier) @name))])
    (unary_expression operand: (composite_literal type: [
      (qualified_type package: (_) @qualifier name: (type_identifier) @name)
      (generic_type type: (qualified_type package: (_) @qualifier name: (type_identifier) @name))]))
  ] @reference.new .))
((short_var_declaration
  left: (expression_list . (identifier) @binds .)
  right: (expression_list .
    (call_expression
      function: (identifier) @_new
      arguments: (argument_list . [(type_identifier) @name (qualified_type package: (_) @qualifier name: (type_identifier) @name)] .)) @reference.new .))
 (#eq? @_new "new"))
; (an assertion gives its type to the first name: v := x.(*T), v, ok := x.(pkg.T); a type switch's
; name to the type of a case of one type (of several, it keeps the switch's type), kept by _go.py
; only when the switch has one such case)
((short_var_declaration
  left: (expression_list . (identifier) @binds)
  right: (expression_list .
    (type_assertion_expression type: [
      (type_identifier) @name
      (pointer_type (type_identifier) @name)
      (qualified_type package: (_) @qualifier name: (type_identifier) @name)
      (pointer_type (qualified_type package: (_) @qualifier name: (type_identifier) @name))
    ]) @reference.type .))
 (#not-match? @name "^(any|bool|byte|comparable|complex(64|128)|error|float(32|64)|u?int(8|16|32|64)?|rune|string|uintptr)$"))
((type_switch_statement
  alias: (expression_list . (identifier) @binds .)
  (type_case "case" . type: [
    (type_identifier) @name
    (pointer_type (type_identifier) @name)
    (qualified_type package: (_) @qualifier name: (type_identifier) @name)
    (pointer_type (qualified_type package: (_) @qualifier name: (type_identifier) @name))
  ] @reference.type . ":"))
 (#not-match? @name "^(any|bool|byte|comparable|complex(64|128)|error|float(32|64)|u?int(8|16|32|64)?|rune|string|uintptr)$"))

; a method or function passed as a value: mux.HandleFunc("/", s.handleIndex), Handler{Next: s.serve}
; (a lower-case selector only: the capitalised ones are read above; a type's field and method never
; share a name, so resolved to a method it is the method)
((argument_list (selector_expression operand: (_) @qualifier field: (field_identifier) @name) @reference.use)
 (#match? @name "^[a-z_]"))
((keyed_element
  value: (literal_element (selector_expression operand: (_) @qualifier field: (field_identifier) @name) @reference.use))
 (#match? @name "^[a-z_]"))

; what a container holds and what takes one of its elements (read by _navigation.py; no reference
; of their own, the element type is a type use above). @holds: a field, parameter or variable whose
; elements are of class @name: a slice or array of T or *T (orders []Order, ptrs []*pb.Order,
; [4]Order, orders ...Order), a map's value (byID map[string]*Order), also a var or := given a
; literal or make of one (all := []Order{}, m := make(map[string]*Order)). A slice of slices, a map
; of slices, a channel hold no class here; generic containers are left alone.
((_
  name: [(identifier) (field_identifier)] @holds
  type: [
    (slice_type element: [(type_identifier) @name (pointer_type (type_identifier) @name)
                          (qualified_type name: (type_identifier) @name) (pointer_type (qualified_type name: (type_identifier) @name))])
    (array_type element: [(type_identifier) @name (pointer_type (type_identifier) @name)
                          (qualified_type name: (type_identifier) @name) (pointer_type (qualified_type name: (type_identifier) @name))])
    (map_type value: [(type_identifier) @name (pointer_type (type_identifier) @name)
                      (qualified_type name: (type_identifier) @name) (pointer_type (qualified_type name: (type_identifier) @name))])
  ])
  (#not-match? @name "^(any|bool|byte|comparable|complex(64|128)|error|float(32|64)|u?int(8|16|32|64)?|rune|string|uintptr)$"))
((variadic_parameter_declaration
  name: (identifier) @holds
  type: [(type_identifier) @name (pointer_type (type_identifier) @name)
         (qualified_type name: (type_identifier) @name) (pointer_type (qualified_type name: (type_identifier) @name))])
  (#not-match? @name "^(any|bool|byte|comparable|complex(64|128)|error|float(32|64)|u?int(8|16|32|64)?|rune|string|uintptr)$"))
([(short_var_declaration left: (expression_list . (identifier) @holds .) right: (expression_list .
    (composite_literal type: [
      (slice_type element: [(type_identifier) @name (pointer_type (type_identifier) @name)
                    (qualified_type name: (type_identifier) @name) (pointer_type (qualified_type name: (type_identifier) @name))])
      (array_type element: [(type_identifier) @name (pointer_type (type_identifier) @name)
                    (qualified_type name: (type_identifier) @name) (pointer_type (qualified_type name: (type_identifier) @name))])
      (implicit_length_array_type element: [(type_identifier) @name (pointer_type (type_identifier) @name)
                    (qualified_type name: (type_identifier) @name) (pointer_type (qualified_type name: (type_identifier) @name))])
      (map_type value: [(type_identifier) @name (pointer_type (type_identifier) @name)
                    (qualified_type name: (type_identifier) @name) (pointer_type (qualified_type name: (type_identifier) @name))])]) .))
  (var_spec name: (identifier) @holds . value: (expression_list .
    (composite_literal type: [
      (slice_type element: [(type_identifier) @name (pointer_type (type_identifier) @name)
                    (qualified_type name: (type_identifier) @name) (pointer_type (qualified_type name: (type_identifier) @name))])
      (array_type element: [(type_identifier) @name (pointer_type (type_identifier) @name)
                    (qualified_type name: (type_identifier) @name) (pointer_type (qualified_type name: (type_identifier) @name))])
      (implicit_length_array_type element: [(type_identifier) @name (pointer_type (type_identifier) @name)
                    (qualified_type name: (type_identifier) @name) (pointer_type (qualified_type name: (type_identifier) @name))])
      (map_type value: [(type_identifier) @name (pointer_type (type_identifier) @name)
                    (qualified_type name: (type_identifier) @name) (pointer_type (qualified_type name: (type_identifier) @name))])]) .))]
  (#not-match? @name "^(any|bool|byte|comparable|complex(64|128)|error|float(32|64)|u?int(8|16|32|64)?|rune|string|uintptr)$"))
((short_var_declaration
  left: (expression_list . (identifier) @holds .)
  right: (expression_list .
    (call_expression function: (identifier) @_make arguments: (argument_list . [
      (slice_type element: [(type_identifier) @name (pointer_type (type_identifier) @name)
                    (qualified_type name: (type_identifier) @name) (pointer_type (qualified_type name: (type_identifier) @name))])
      (map_type value: [(type_identifier) @name (pointer_type (type_identifier) @name)
                    (qualified_type name: (type_identifier) @name) (pointer_type (qualified_type name: (type_identifier) @name))])])) .))
  (#eq? @_make "make")
  (#not-match? @name "^(any|bool|byte|comparable|complex(64|128)|error|float(32|64)|u?int(8|16|32|64)?|rune|string|uintptr)$"))
; @element of @container: the value a two-name range gives (for _, o := range orders, range
; s.orders; one name is the index or key), and one name := an index of it (o := orders[i],
; o := &s.orders[i], o, ok := byID[k]). A container read through its receiver (s.orders) is
; @container by its field's name: Go names receivers freely, so s. cannot be told from this.
(range_clause
  left: (expression_list . (identifier) . (identifier) @element .)
  right: [(identifier) @container (selector_expression operand: (identifier) field: (field_identifier) @container)])
(short_var_declaration
  left: (expression_list . (identifier) @element)
  right: (expression_list . [
    (index_expression operand: [(identifier) @container (selector_expression operand: (identifier) field: (field_identifier) @container)])
    (unary_expression operator: "&" operand: (index_expression
      operand: [(identifier) @container (selector_expression operand: (identifier) field: (field_identifier) @container)]))] .))

; what a function of the file returns (@returns_of, its type as @name; the first of several
; results: (T, error)) and a variable set by a call of it (@element of @returned_by:
; e := setup(t), s, err := newStore(cfg), var s = newStore(cfg))
((function_declaration name: (identifier) @returns_of
   result: [(type_identifier) @name (pointer_type (type_identifier) @name)
            (parameter_list . (parameter_declaration type: [(type_identifier) @name (pointer_type (type_identifier) @name)]))])
 (#not-match? @name "^(any|bool|byte|comparable|complex(64|128)|error|float(32|64)|u?int(8|16|32|64)?|rune|string|uintptr)$"))
(short_var_declaration
  left: (expression_list . (identifier) @element)
  right: (expression_list . (call_expression function: (identifier) @returned_by) .))
(var_spec
  name: (identifier) @element .
  value: (expression_list . (call_expression function: (identifier) @returned_by) .))
