"""Unit test of the BenchExec tool-info module (contrib/benchexec/arrax.py).

Runs where BenchExec is installed (`pip install benchexec`); skipped with a
message otherwise. Run: python3 -m unittest contrib/benchexec/test_arrax.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    import benchexec.result as result
    from benchexec.tools.template import BaseTool2
    from benchexec.util import ProcessExitCode

    import arrax

    HAVE_BENCHEXEC = True
except ImportError as e:  # pragma: no cover
    HAVE_BENCHEXEC = False
    WHY = str(e)


class FakeOutput(list):
    """The lines of a run, as BenchExec's RunOutput offers them."""

    def any_line_contains(self, s):
        return any(s in line for line in self)


class Limits:
    def __init__(self, cputime=None):
        self.cputime = cputime


@unittest.skipUnless(HAVE_BENCHEXEC, "BenchExec is not installed (pip install benchexec)")
class ToolInfoTest(unittest.TestCase):
    def setUp(self):
        self.tool = arrax.Tool()

    def run_of(self, text, code):
        return BaseTool2.Run(["arrax"], ProcessExitCode.create(value=code), FakeOutput(text.splitlines()), None)

    def test_name_and_version_parsing(self):
        self.assertEqual(self.tool.name(), "arrax")
        binary = os.environ.get("ARRAX_BIN")
        if binary:
            self.assertRegex(self.tool.version(binary), r"^\d+\.\d+\.\d+")

    def test_executable_in_a_root_or_beside(self):
        binary = os.environ.get("ARRAX_BIN")
        if not binary:
            self.skipTest("ARRAX_BIN not set")
        folder = os.path.dirname(os.path.abspath(binary))
        found = self.tool.executable(BaseTool2.ToolLocator(tool_directory=folder))
        self.assertEqual(os.path.abspath(found), os.path.abspath(binary))

    def test_cmdline(self):
        task = BaseTool2.Task.with_files(["prog.c"], property_file="unreach-call.prp", options={"language": "C", "data_model": "LP64"})
        cmd = self.tool.cmdline("bin/arrax", ["--engine", "auto"], task, Limits(cputime=900))
        self.assertEqual(
            cmd,
            ["bin/arrax", "check", "--svcomp", "--property", "unreach-call.prp", "--data-model", "LP64", "--timeout", "855", "--engine", "auto", "prog.c"],
        )

    def test_results(self):
        self.assertEqual(self.tool.determine_result(self.run_of("TRUE\nnote: x\nSAFE\n", 0)), result.RESULT_TRUE_PROP)
        self.assertEqual(self.tool.determine_result(self.run_of("FALSE\nUNSAFE (replayed)\n", 1)), result.RESULT_FALSE_REACH)
        self.assertEqual(self.tool.determine_result(self.run_of("UNKNOWN\nUNKNOWN (timeout)\n", 3)), result.RESULT_UNKNOWN)
        err = self.tool.determine_result(self.run_of("prog.c:3:7: unsupported: floating point\n", 2))
        self.assertTrue(err.startswith("ERROR") and "floating point" in err, err)
        self.assertEqual(self.tool.determine_result(self.run_of("thread 'main' panicked\n", 101)), result.RESULT_ERROR)


if __name__ == "__main__":
    if not HAVE_BENCHEXEC:
        print("skipped: BenchExec is not installed (" + WHY + ")")
    unittest.main()
