# This file is part of arrax: a BenchExec tool-info module.
# Install it where BenchExec finds tool-info modules, e.g.
#   cp contrib/benchexec/arrax.py "$(python3 -c 'import benchexec.tools, os; print(os.path.dirname(benchexec.tools.__file__))')"/
# or put contrib/benchexec on PYTHONPATH and name the tool `arrax` in a
# benchmark definition (see arrax-sv-arrays.xml).
"""BenchExec tool-info module for arrax, a model checker for array programs
and parameterised protocols (SV-COMP property unreach-call)."""

import benchexec.result as result
import benchexec.tools.template


class Tool(benchexec.tools.template.BaseTool2):
    """arrax: `arrax check --svcomp --property P [--data-model M] FILE`.

    The first line of its output is TRUE, FALSE or UNKNOWN; the exit code
    is 0 (TRUE), 1 (FALSE), 3 (UNKNOWN) or 2 (bad input or usage).
    """

    def executable(self, tool_locator):
        # an installation root (bin/arrax) or the folder holding the binary
        try:
            return tool_locator.find_executable("arrax", subdir="bin")
        except benchexec.tools.template.ToolNotFoundException:
            return tool_locator.find_executable("arrax")

    def name(self):
        return "arrax"

    def version(self, executable):
        # `arrax --version` prints `arrax 0.1.0`
        line = self._version_from_tool(executable, "--version")
        return line.split()[-1] if line else ""

    def cmdline(self, executable, options, task, rlimits):
        cmd = [executable, "check", "--svcomp"]
        if task.property_file:
            cmd += ["--property", task.property_file]
        model = (task.options or {}).get("data_model")
        if model and "--data-model" not in options:
            cmd += ["--data-model", model]
        if rlimits.cputime and "--timeout" not in options:
            # arrax's own limit, a little below BenchExec's, so that it
            # answers UNKNOWN (timeout) with its statistics
            cmd += ["--timeout", str(max(1, int(rlimits.cputime * 0.95)))]
        return cmd + list(options) + list(task.input_files)

    def determine_result(self, run):
        lines = [line.strip() for line in run.output]
        first = next((line for line in lines if line), "")
        if first == "TRUE":
            return result.RESULT_TRUE_PROP
        if first == "FALSE":
            return result.RESULT_FALSE_REACH
        if run.exit_code.value == 2:
            why = next((line for line in lines if ": " in line), "bad input")
            return "ERROR (" + why[-120:] + ")"
        last = next((line for line in reversed(lines) if line.startswith("UNKNOWN")), None)
        if first == "UNKNOWN" or last:
            return result.RESULT_UNKNOWN
        return result.RESULT_ERROR

    def get_value_from_output(self, output, identifier):
        # `--json` is not used here; statistics lines are `statistics: ...`
        for line in output:
            if line.startswith(identifier):
                return line[len(identifier) :].strip()
        return None
