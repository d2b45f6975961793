"""The parser: tokens to syntax tree (PLY yacc, LALR tables shipped in parse_tables.py).

PLY reads the grammar from a ``Parser`` instance: ``tokens``, ``precedence``, ``start`` and
the ``p_*`` rules (BNF in their docstrings) stay in this module, in grammar order. The
machinery around them (token stream, located errors, limits) is ``plyparser.PLYParser``.
"""

from __future__ import annotations

import threading
from typing import Optional

import ply.yacc

from starc.diagnostics import CompileError, Diagnostic, Severity, SourceLoc
from starc.frontend import ast
from starc.frontend.lexer import Lexer
from starc.frontend.plyparser import (MAX_CHAIN, MAX_DEPTH, MAX_ERRORS, PLYParser,
                                     RecordingLogger)

__all__ = ["parse", "Parser", "MAX_ERRORS", "MAX_DEPTH", "MAX_CHAIN", "build_tables",
           "grammar_signature", "TABLES"]

#: The module holding the LALR tables, generated from this grammar by
#: tools/generate_parse_tables.py (building them takes PLY longer than compiling a program).
#: PLY uses it only when its signature is this grammar's; otherwise (a grammar edited without
#: regenerating, which a test catches) it builds the tables in memory, as ``build_tables`` does.
TABLES = "starc.frontend.parse_tables"

_COMPOUND_OPS = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "&=": "&", "|=": "|"}
_ATTACH_KINDS = {"attachNodeProperty": "node", "attachEdgeProperty": "edge"}


class Parser(PLYParser):
    """The grammar (BNF in the ``p_*`` docstrings) and the actions that build ``ast`` nodes.

    One instance is built per process (see ``parse``); ``run`` resets its per-parse state.
    """

    tokens = Lexer.tokens

    # The only two ambiguities of the grammar, both resolved towards the innermost statement:
    # a dangling ``else`` and an ``iterateInReverse`` after a nested ``iterateInBFS``.
    precedence = (
        ("nonassoc", "LOWER_THAN_ELSE"),
        ("nonassoc", "ELSE", "ITERATEINREVERSE"),
    )

    start = "program"

    def __init__(self, errorlog=None, debug: bool = False, debuglog=None,
                 tables: str = TABLES) -> None:
        super().__init__()
        # write_tables=False: PLY never writes a table file, here or anywhere.
        self.yacc = ply.yacc.yacc(
            module=self, start="program", debug=debug, debuglog=debuglog,
            write_tables=False, errorlog=errorlog or RecordingLogger(), tabmodule=tables)

    def p_error(self, tok):
        """PLY's error action: report the unexpected token, with the expected ones if few."""
        if tok is None:
            if not self.lexer.unterminated_comment:
                self._error_at_end("E0104", "unexpected end of input")
            return
        if tok.type == "RESERVED":
            return  # already reported as E0105 when it was read
        if tok.type in ("PLUSPLUS", "MINUSMINUS"):
            # StarPlat's grammar lets 'x++' be a value (y = x++, a + b++); starc keeps updates
            # out of expressions (their order inside one is unspecified in a parallel body)
            self._error("E0103", f"syntax error: '{tok.value}' is a statement of its own "
                                 f"('x{tok.value};'), not part of an expression",
                        self._tok_loc(tok),
                        hint=f"update in its own statement before or after the use: "
                             f"'y = x; x{tok.value};' uses the old value")
            return
        self._error("E0103", f"syntax error: unexpected '{tok.value}'{self._expected(tok)}",
                    self._tok_loc(tok))

    # --- program and functions -------------------------------------------------------------

    def p_program(self, p):
        """program : function_list"""
        functions = tuple(f for f in p[1] if f is not None)
        loc = functions[0].loc if functions else SourceLoc(self.filename, 1, 1)
        p[0] = ast.Program(functions, self.filename, loc=loc)

    def p_function_list(self, p):
        """function_list : function
                         | function_list function"""
        p[0] = [p[1]] if len(p) == 2 else p[1] + [p[2]]

    def p_function(self, p):
        """function : function_keyword ID '(' param_list_opt ')' block"""
        keyword, loc = p[1]
        p[0] = ast.Function(p[2], tuple(p[4]), p[6], keyword, loc=loc)

    def p_function_unnamed(self, p):
        """function : INCREMENTAL '(' param_list_opt ')' block
                    | DECREMENTAL '(' param_list_opt ')' block"""
        # StarPlat's incremental and decremental steps have no name: they are called by the
        # keyword, 'Incremental(g, ...)' (at most one of each in a file)
        p[0] = ast.Function(p[1], tuple(p[3]), p[5], p[1], loc=self._loc(p, 1))

    def p_function_error(self, p):
        """function : function_keyword error block
                    | error block
                    | RESERVED '(' param_list_opt ')' block"""
        # the last: StarPlat's 'Incremental(Graph g, ...) { }', already reported (E0105)
        p[0] = None

    def p_function_keyword(self, p):
        """function_keyword : FUNCTION
                            | STATIC
                            | DYNAMIC
                            | RESERVED"""
        p[0] = (p[1], self._loc(p, 1))

    def p_param_list_opt(self, p):
        """param_list_opt : param_list
                          | empty"""
        p[0] = p[1] or []

    def p_param_list(self, p):
        """param_list : param
                      | param_list ',' param"""
        p[0] = [p[1]] if len(p) == 2 else p[1] + [p[3]]

    def p_param(self, p):
        """param : type ID"""
        p[0] = ast.Param(p[1], p[2], loc=p[1].loc)

    def p_empty(self, p):
        """empty :"""
        p[0] = None

    # --- types -------------------------------------------------------------------------------

    def p_type_simple(self, p):
        """type : INT
                | LONG
                | FLOAT
                | DOUBLE
                | BOOL
                | NODE
                | EDGE
                | GRAPH
                | DIRGRAPH
                | RESERVED"""
        p[0] = ast.TypeExpr(p[1], loc=self._loc(p, 1))

    def p_type_property(self, p):
        """type : PROPNODE '<' type '>'
                | PROPEDGE '<' type '>'"""
        p[0] = ast.TypeExpr(p[1], (p[3],), loc=self._loc(p, 1))

    def p_type_set(self, p):
        """type : SETN '<' ID '>'
                | SETE '<' ID '>'"""
        p[0] = ast.TypeExpr(p[1], (p[3],), loc=self._loc(p, 1))

    def p_type_updates(self, p):
        """type : UPDATES '<' ID '>'"""
        p[0] = ast.TypeExpr(p[1], (p[3],), loc=self._loc(p, 1))

    def p_type_reserved(self, p):
        """type : RESERVED '<' type_arg_list '>'"""
        p[0] = ast.TypeExpr(p[1], tuple(p[3]), loc=self._loc(p, 1))

    def p_type_reserved_map(self, p):
        """type : RESERVED '(' PROPNODE '<' type '>' ')'
                | RESERVED '(' PROPEDGE '<' type '>' ')'"""
        # StarPlat's map of properties, 'nodeMap(propNode<int>)' (rejected as E0105 when
        # lexed), parses so that rejecting it is the only error its program gets
        held = ast.TypeExpr(p[3], (p[5],), loc=self._loc(p, 3))
        p[0] = ast.TypeExpr(p[1], (held,), loc=self._loc(p, 1))

    def p_type_arg_list(self, p):
        """type_arg_list : type_arg
                         | type_arg_list ',' type_arg"""
        p[0] = [p[1]] if len(p) == 2 else p[1] + [p[3]]

    def p_type_arg(self, p):
        """type_arg : type
                    | ID"""
        p[0] = p[1]

    # --- blocks and statement lists ----------------------------------------------------------

    def p_block(self, p):
        """block : '{' stmt_list '}'
                 | '{' stmt_list error '}'"""
        p[0] = ast.Block(tuple(p[2]), loc=self._loc(p, 1))

    def p_stmt_list(self, p):
        """stmt_list : empty
                     | stmt_list stmt
                     | stmt_list ';'"""
        if len(p) == 2:
            p[0] = []
        else:
            p[0] = p[1]
            if isinstance(p[2], ast.Stmt):
                p[0].append(p[2])

    def p_stmt_block(self, p):
        """stmt : block"""
        p[0] = p[1]

    def p_stmt_error(self, p):
        """stmt : error ';'
                | error block"""
        # the second: a header that went wrong before its body ('forall (v in g.nodes() {'):
        # its block is skipped whole, so its closing brace does not end the function early
        # (which made every later statement a cascade of errors)
        p[0] = None

    # --- simple statements -------------------------------------------------------------------

    def p_stmt_declaration(self, p):
        """stmt : type declarator_list ';'"""
        p[0] = ast.VarDecl(p[1], tuple(p[2]), loc=p[1].loc)

    def p_stmt_container_declaration(self, p):
        """stmt : RESERVED '<' type_arg_list '>' '(' arg_list_opt ')' declarator_list ';'"""
        # StarPlat's sized container, 'container<int>(g.num_nodes(), 0) levelCount;': the
        # container is already rejected (E0105); its constructor arguments are dropped
        kind = ast.TypeExpr(p[1], tuple(p[3]), loc=self._loc(p, 1))
        p[0] = ast.VarDecl(kind, tuple(p[8]), loc=kind.loc)

    def p_declarator_list(self, p):
        """declarator_list : declarator
                           | declarator_list ',' declarator"""
        p[0] = [p[1]] if len(p) == 2 else p[1] + [p[3]]

    def p_declarator(self, p):
        """declarator : ID
                      | ID '=' expr"""
        p[0] = ast.Declarator(p[1], p[3] if len(p) == 4 else None, loc=self._loc(p, 1))

    def p_stmt_assign(self, p):
        """stmt : postfix_expr '=' expr ';'"""
        p[0] = ast.Assign(p[1], p[3], loc=p[1].loc)

    def p_stmt_compound(self, p):
        """stmt : postfix_expr PLUSEQ expr ';'
                | postfix_expr MINUSEQ expr ';'
                | postfix_expr TIMESEQ expr ';'
                | postfix_expr DIVEQ expr ';'
                | postfix_expr ANDEQ expr ';'
                | postfix_expr OREQ expr ';'"""
        p[0] = ast.CompoundAssign(p[1], _COMPOUND_OPS[p[2]], p[3], loc=p[1].loc)

    def p_stmt_incdec(self, p):
        """stmt : postfix_expr PLUSPLUS ';'
                | postfix_expr MINUSMINUS ';'"""
        # located at the operator: messages about the update point at the '++'
        p[0] = ast.IncDec(p[1], p[2], loc=self._loc(p, 2))

    def p_stmt_expr(self, p):
        """stmt : postfix_expr ';'"""
        expr = p[1]
        if isinstance(expr, ast.MethodCall) and expr.method in _ATTACH_KINDS:
            if expr.args:
                self._error("E0103", f"syntax error: '{expr.method}' takes 'name = value' "
                                     "pairs", expr.loc)
            p[0] = ast.Attach(expr.obj, _ATTACH_KINDS[expr.method], (), loc=expr.loc)
            return
        if not isinstance(expr, (ast.Call, ast.MethodCall)):
            self._error("E0103", "syntax error: unexpected ';' (only a call can stand as a "
                                 "statement)", self._loc(p, 2))
        p[0] = ast.ExprStmt(expr, loc=expr.loc)

    def p_stmt_attach(self, p):
        """stmt : postfix_expr '.' ID '(' attach_pairs ')' ';'"""
        kind = _ATTACH_KINDS.get(p[3])
        if kind is None:
            self._error("E0103", f"syntax error: 'name = value' arguments are only allowed in "
                                 f"attachNodeProperty/attachEdgeProperty, not '{p[3]}'",
                        self._loc(p, 3))
            kind = "node"
        p[0] = ast.Attach(p[1], kind, tuple(p[5]), loc=p[1].loc)

    def p_attach_pairs(self, p):
        """attach_pairs : ID '=' expr
                        | attach_pairs ',' ID '=' expr"""
        p[0] = [(p[1], p[3])] if len(p) == 4 else p[1] + [(p[3], p[5])]

    def p_stmt_minmax(self, p):
        """stmt : '<' target_list '>' '=' '<' minmax '(' arg_list_opt ')' tuple_rest '>' ';'"""
        p[0] = ast.MinMaxAssign(tuple(p[2]), p[6], tuple(p[8]), tuple(p[10]),
                                loc=self._loc(p, 1))

    def p_stmt_minmax_ge(self, p):
        """stmt : '<' target_list GE '<' minmax '(' arg_list_opt ')' tuple_rest '>' ';'"""
        # ``<a>=<Min(a, b)>;`` written without spaces: ``>=`` is lexed as one token.
        p[0] = ast.MinMaxAssign(tuple(p[2]), p[5], tuple(p[7]), tuple(p[9]),
                                loc=self._loc(p, 1))

    def p_minmax(self, p):
        """minmax : MIN
                  | MAX"""
        p[0] = p[1]

    def p_target_list(self, p):
        """target_list : postfix_expr
                       | target_list ',' postfix_expr"""
        p[0] = [p[1]] if len(p) == 2 else p[1] + [p[3]]

    def p_tuple_rest(self, p):
        """tuple_rest : empty
                      | tuple_rest ',' additive_expr"""
        # Elements after the Min/Max call stop short of comparisons: a bare '>' closes the
        # tuple (write ``(a > b)`` to compare).
        p[0] = [] if len(p) == 2 else p[1] + [p[3]]

    def p_stmt_return(self, p):
        """stmt : RETURN ';'
                | RETURN expr ';'"""
        p[0] = ast.Return(p[2] if len(p) == 4 else None, loc=self._loc(p, 1))

    def p_stmt_break(self, p):
        """stmt : BREAK ';'"""
        p[0] = ast.Break(loc=self._loc(p, 1))

    def p_stmt_continue(self, p):
        """stmt : CONTINUE ';'"""
        p[0] = ast.Continue(loc=self._loc(p, 1))

    # --- compound statements -----------------------------------------------------------------

    def p_stmt_if(self, p):
        """stmt : IF '(' expr ')' stmt %prec LOWER_THAN_ELSE
                | IF '(' expr ')' stmt ELSE stmt"""
        orelse = _body(p[7]) if len(p) == 8 else None
        p[0] = ast.If(p[3], _body(p[5]), orelse,
                      loc=self._loc(p, 1))

    def p_stmt_while(self, p):
        """stmt : WHILE '(' expr ')' stmt"""
        p[0] = ast.While(p[3], _body(p[5]), loc=self._loc(p, 1))

    def p_stmt_do_while(self, p):
        """stmt : DO stmt WHILE '(' expr ')' ';'"""
        p[0] = ast.DoWhile(_body(p[2]), p[5], loc=self._loc(p, 1))

    def p_stmt_loop(self, p):
        """stmt : FORALL '(' ID loop_in iter_source ')' stmt
                | FOR '(' ID loop_in iter_source ')' stmt"""
        p[0] = ast.Loop(p[3], p[5], _body(p[7]), p[1] == "forall",
                        loc=self._loc(p, 1))

    def p_loop_in(self, p):
        """loop_in : IN
                   | ':'"""
        # 'v : g.nodes()' is in no version of StarPlat's grammar, only in two of its stale
        # test programs: rejected with the spelling to use (LANGUAGE.md §7)
        if p[1] == ":":
            self._error("E0103", "syntax error: a loop variable is bound with 'in', not ':'",
                        self._loc(p, 1), hint="write 'forall (v in g.nodes())', "
                                              "'iterateInBFS (v in g.nodes() from src)'")

    def p_iter_source(self, p):
        """iter_source : postfix_expr filter_opt"""
        expr = p[1]
        if isinstance(expr, ast.MethodCall):
            p[0] = ast.IterSource(expr.obj, expr.method, expr.args, p[2], loc=expr.loc)
        else:
            p[0] = ast.IterSource(expr, None, (), p[2], loc=expr.loc)

    def p_filter_opt(self, p):
        """filter_opt : empty
                      | '.' FILTER '(' expr ')'"""
        p[0] = p[4] if len(p) == 6 else None

    def p_stmt_batch(self, p):
        """stmt : BATCH '(' ID ':' expr ')' stmt"""
        stream = ast.Name(p[3], loc=self._loc(p, 3))
        p[0] = ast.Batch(stream, p[5], _body(p[7]), loc=self._loc(p, 1))

    def p_stmt_on_update(self, p):
        """stmt : ONADD '(' ID loop_in postfix_expr ')' ':' stmt
                | ONDELETE '(' ID loop_in postfix_expr ')' ':' stmt
                | ONADD '(' ID loop_in postfix_expr ')' stmt
                | ONDELETE '(' ID loop_in postfix_expr ')' stmt"""
        # StarPlat writes a ':' before the body; without it the statement reads as a forall
        kind = "add" if p[1] == "OnAdd" else "delete"
        p[0] = ast.OnUpdate(kind, p[3], p[5], _body(p[len(p) - 1]), loc=self._loc(p, 1))

    def p_stmt_fixed_point(self, p):
        """stmt : FIXEDPOINT UNTIL '(' ID ':' expr ')' stmt"""
        p[0] = ast.FixedPoint(p[4], p[6], _body(p[8]), loc=self._loc(p, 1))

    def p_stmt_fixed_point_condition_only(self, p):
        """stmt : FIXEDPOINT UNTIL '(' expr ')' stmt"""
        # StarPlat's grammar also needs 'fin :'; one of its SSSP variants writes
        # 'until (finished==True)', which names no flag property to converge on
        self._error("E0103", "syntax error: fixedPoint needs a variable and a condition: "
                             "'until (finished : !modified)'", p[4].loc,
                    hint="'finished' is a bool declared before the loop, 'modified' the "
                         "propNode<bool> whose flags keep the loop going")

    def p_stmt_bfs(self, p):
        """stmt : ITERATEINBFS '(' ID loop_in postfix_expr FROM expr ')' filter_opt stmt %prec LOWER_THAN_ELSE
                | ITERATEINBFS '(' ID loop_in postfix_expr FROM expr ')' filter_opt stmt reverse"""
        source = p[5]
        if isinstance(source, ast.MethodCall) and source.method == "nodes" and not source.args:
            graph = source.obj
        else:
            self._error("E0103", "syntax error: iterateInBFS iterates 'g.nodes()'", source.loc)
            graph = source
        reverse = p[11] if len(p) == 12 else None
        p[0] = ast.IterateInBFS(p[3], graph, p[7], p[9], _body(p[10]), reverse,
                                loc=self._loc(p, 1))

    def p_stmt_reverse(self, p):
        """stmt : reverse"""
        p[0] = p[1]

    def p_reverse(self, p):
        """reverse : ITERATEINREVERSE '(' expr ')' stmt
                   | ITERATEINREVERSE '(' ')' stmt
                   | ITERATEINREVERSE block"""
        if len(p) == 3:
            cond, body = None, p[2]
        elif len(p) == 5:
            cond, body = None, _body(p[4])
        else:
            cond, body = p[3], _body(p[5])
        p[0] = ast.IterateInReverse(cond, body, loc=self._loc(p, 1))

    # --- expressions, loosest first (the levels of starc.frontend.precedence) ------------------

    def p_expr(self, p):
        """expr : or_expr"""
        p[0] = p[1]

    def p_binary(self, p):
        """or_expr : or_expr OROR and_expr
           and_expr : and_expr ANDAND equality_expr
           equality_expr : equality_expr EQ relational_expr
                         | equality_expr NE relational_expr
           relational_expr : relational_expr '<' additive_expr
                           | relational_expr LE additive_expr
                           | relational_expr '>' additive_expr
                           | relational_expr GE additive_expr
           additive_expr : additive_expr '+' multiplicative_expr
                         | additive_expr '-' multiplicative_expr
           multiplicative_expr : multiplicative_expr '*' unary_expr
                               | multiplicative_expr '/' unary_expr
                               | multiplicative_expr '%' unary_expr"""
        p[0] = ast.Binary(p[2], p[1], p[3], loc=p[1].loc)

    def p_binary_level(self, p):
        """or_expr : and_expr
           and_expr : equality_expr
           equality_expr : relational_expr
           relational_expr : additive_expr
           additive_expr : multiplicative_expr
           multiplicative_expr : unary_expr
           unary_expr : postfix_expr"""
        p[0] = p[1]

    def p_unary(self, p):
        """unary_expr : '-' unary_expr
                      | '!' unary_expr"""
        p[0] = ast.Unary(p[1], p[2], loc=self._loc(p, 1))

    def p_postfix_member(self, p):
        """postfix_expr : postfix_expr '.' ID"""
        p[0] = ast.Member(p[1], p[3], loc=p[1].loc)

    def p_postfix_method(self, p):
        """postfix_expr : postfix_expr '.' ID '(' arg_list_opt ')'"""
        p[0] = ast.MethodCall(p[1], p[3], tuple(p[5]), loc=p[1].loc)

    def p_postfix_index(self, p):
        """postfix_expr : postfix_expr '[' expr ']'"""
        p[0] = ast.Index(p[1], p[3], loc=p[1].loc)

    def p_postfix_primary(self, p):
        """postfix_expr : primary"""
        p[0] = p[1]

    def p_primary_name(self, p):
        """primary : ID
                   | RESERVED"""
        p[0] = ast.Name(p[1], loc=self._loc(p, 1))

    def p_primary_int(self, p):
        """primary : INT_CONST"""
        p[0] = ast.IntLit(int(p[1]), loc=self._loc(p, 1))

    def p_primary_float(self, p):
        """primary : FLOAT_CONST"""
        p[0] = ast.FloatLit(float(p[1]), p[1], loc=self._loc(p, 1))

    def p_primary_bool(self, p):
        """primary : TRUE
                   | FALSE"""
        p[0] = ast.BoolLit(p[1] in ("True", "true"), p[1], loc=self._loc(p, 1))

    def p_primary_inf(self, p):
        """primary : INF"""
        p[0] = ast.InfLit(p[1], loc=self._loc(p, 1))

    def p_primary_paren(self, p):
        """primary : '(' expr ')'"""
        p[0] = p[2]

    def p_primary_call(self, p):
        """primary : ID '(' arg_list_opt ')'
                   | RESERVED '(' arg_list_opt ')'
                   | INCREMENTAL '(' arg_list_opt ')'
                   | DECREMENTAL '(' arg_list_opt ')'
                   | MIN '(' arg_list_opt ')'
                   | MAX '(' arg_list_opt ')'
                   | SUM '(' arg_list_opt ')'
                   | COUNT '(' arg_list_opt ')'
                   | PRODUCT '(' arg_list_opt ')'"""
        p[0] = ast.Call(p[1], tuple(p[3]), loc=self._loc(p, 1))

    def p_arg_list_opt(self, p):
        """arg_list_opt : empty
                        | arg_list"""
        p[0] = p[1] or []

    def p_arg_list(self, p):
        """arg_list : expr
                    | arg_list ',' expr"""
        p[0] = [p[1]] if len(p) == 2 else p[1] + [p[3]]


def _body(stmt):
    """A statement used as a body; an error-recovered one (None) becomes an empty block (the
    tree is discarded anyway: the parse reports the error)."""
    return ast.Block(()) if stmt is None else stmt


_lock = threading.Lock()
_parser: Optional[Parser] = None


def build_tables(errorlog=None, debug: bool = False, debuglog=None) -> Parser:
    """A parser whose tables PLY builds in memory from the grammar, ignoring the shipped
    ones; tests use it to inspect PLY's log (conflicts are only counted while building)."""
    return Parser(errorlog=errorlog, debug=debug, debuglog=debuglog,
                  tables="starc.frontend._no_parse_tables")


def grammar_signature() -> str:
    """PLY's signature of the grammar (start symbol, precedence, tokens and rules), read as
    ``ply.yacc.yacc`` reads it: the shipped tables are current when theirs is the same."""
    grammar = Parser.__new__(Parser)     # the rules without building a parser
    reflect = ply.yacc.ParserReflect({name: getattr(grammar, name) for name in dir(grammar)},
                                     log=RecordingLogger())
    reflect.get_all()
    return reflect.signature()


def parse(text: str, filename: str = "<input>") -> ast.Program:
    """Parse ``text`` into an ``ast.Program``; raise ``CompileError`` with every syntax error."""
    global _parser
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    with _lock:
        if _parser is None:
            _parser = Parser()
        try:
            return _parser.run(text, filename)
        except RecursionError:
            raise CompileError([Diagnostic(
                Severity.ERROR, f"syntax error: nesting too deep (more than {MAX_DEPTH} levels)",
                SourceLoc(filename, 1, 1), "E0103")]) from None

