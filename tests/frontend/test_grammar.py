"""The grammar builds without any conflict or warning, in memory, without writing files."""

from __future__ import annotations

import os

from starc.frontend.parser import build_tables


class RecordingLogger:
    def __init__(self):
        self.messages = []

    def _record(self, msg, *args, **kwargs):
        self.messages.append(msg % args if args else str(msg))

    warning = error = critical = _record

    def debug(self, *args, **kwargs):
        pass

    info = debug


def test_no_grammar_conflicts_or_warnings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    errorlog, debuglog = RecordingLogger(), RecordingLogger()
    # debug=True makes PLY count and report conflicts (it is silent about them otherwise);
    # the debug log goes to our logger, not to a parser.out file.
    build_tables(errorlog=errorlog, debug=True, debuglog=debuglog)
    conflicts = [m for m in errorlog.messages + debuglog.messages if "conflict" in m]
    assert conflicts == []
    assert errorlog.messages == []
    assert os.listdir(tmp_path) == []


def test_conflict_detection_works():
    """The check above would notice a conflict: an ambiguous toy grammar is reported."""
    import ply.yacc

    class Ambiguous:
        tokens = ("A",)

        def p_s(self, p):
            """s : s s
                 | A"""

        def p_error(self, p):
            pass

    log = RecordingLogger()
    ply.yacc.yacc(module=Ambiguous(), debug=True, debuglog=RecordingLogger(), errorlog=log,
                  write_tables=False)
    assert any("conflict" in m for m in log.messages)


def test_no_table_files_in_the_package():
    import starc.frontend
    package = os.path.dirname(starc.frontend.__file__)
    from starc.frontend import parse
    parse("function f() { }")
    assert not {"parsetab.py", "parser.out"} & set(os.listdir(package))
