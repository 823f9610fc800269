"""Lists and pipelines: ``;``, ``&&`` and ``||``, ``time``, and ``|`` stage by stage.

Each stage's whole stdout becomes the next stage's stdin and the last stage
streams; but a streaming command piped into line filters only
(``tail -f log | grep x``) streams through them chunk by chunk.
"""

from __future__ import annotations

from emulator.shell.interpreter.compound import CompoundCommands
from emulator.shell.interpreter.streams import Buffer, Run, Sink
from emulator.shell.parser import AndOr, Pipeline, Script, Simple


class Pipelines(CompoundCommands):
    """Running lists and pipelines of commands."""

    def run_script(self, script: Script, stdin: str, out: Sink, err: Sink) -> Run:
        status = self.last_status
        for item in script.items:
            status = yield from self.run_and_or(item, stdin, out, err)
            self.last_status = status
        return status

    def run_and_or(self, node: AndOr, stdin: str, out: Sink, err: Sink) -> Run:
        status = yield from self.run_pipeline(node.first, stdin, out, err)
        for op, pipe in node.rest:
            self.last_status = status
            if (op == "&&") == (status == 0):
                status = yield from self.run_pipeline(pipe, stdin, out, err)
        return status

    def run_pipeline(self, pipe: Pipeline, stdin: str, out: Sink, err: Sink) -> Run:
        if pipe.timed:
            started = self.cluster.clock.elapsed
            status = yield from self._pipeline(pipe, stdin, out, err)
            minutes, seconds = divmod(self.cluster.clock.elapsed - started, 60)
            err.write(f"\nreal\t{int(minutes)}m{seconds:.3f}s\nuser\t0m0.000s\nsys\t0m0.000s\n")
            return status
        return (yield from self._pipeline(pipe, stdin, out, err))

    def _pipeline(self, pipe: Pipeline, stdin: str, out: Sink, err: Sink) -> Run:
        filters = self._line_filters(pipe)
        first = pipe.commands[0]
        if filters is not None and isinstance(first, Simple):
            status = yield from self._streaming_pipeline(first, filters, stdin, out, err)
            return (0 if status else 1) if pipe.negate else status
        data = stdin
        status = 0
        last = len(pipe.commands) - 1
        for i, command in enumerate(pipe.commands):
            if i == last:
                status = yield from self.run_command(command, data, out, err)
            else:
                buffer = Buffer()
                status = yield from self.run_command(command, data, buffer, buffer if pipe.stderr_too[i] else err)
                data = buffer.text()
        if pipe.negate:
            status = 0 if status else 1
        return status

    def _line_filters(self, pipe: Pipeline) -> list[list[str]] | None:
        """The argv of each later stage when all of them filter line by line (``tail -f log | grep x``).

        Such a pipeline streams: each chunk the first stage writes goes through the
        filters at once. None when any stage needs its whole input (``sort``,
        ``wc``, ``grep -c``), has redirections, or the first stage is not a plain command.
        """
        if len(pipe.commands) < 2 or any(pipe.stderr_too[:-1]):
            return None
        first = pipe.commands[0]
        if not isinstance(first, Simple) or not first.words:
            return None
        leader = self.commands.lookup(first.words[0].literal() or "")
        if leader is None or not leader.streams:
            return None
        filters: list[list[str]] = []
        for command in pipe.commands[1:]:
            if not isinstance(command, Simple) or command.redirects or command.assigns or not command.words:
                return None
            words = [w.literal() for w in command.words]
            if any(w is None for w in words):
                return None  # expansions: keep the general path, which expands once
            argv = [w for w in words if w is not None]
            stage = self.commands.lookup(argv[0])
            if stage is None or not stage.filters_lines or any(a in stage.whole_input_flags for a in argv[1:]):
                return None
            filters.append(argv)
        return filters

    def _streaming_pipeline(self, first: Simple, filters: list[list[str]], stdin: str, out: Sink, err: Sink) -> Run:
        """Run the first stage, passing each chunk of complete lines through the filters as it comes."""
        pipe = Buffer()
        run = self.run_command(first, stdin, pipe, err)
        pending = ""

        def flush(text: str) -> None:
            for argv in filters:
                if not text:
                    return
                stage = Buffer()
                self._nested(self.run_command_argv(argv, text, stage, err, {}))
                text = stage.text()
            if text:
                out.write(text)

        try:
            while True:
                try:
                    pause = next(run)
                except StopIteration as stop:
                    status = int(stop.value or 0)
                    break
                pending += pipe.text()
                pipe.parts.clear()
                cut = pending.rfind("\n") + 1
                if cut:
                    flush(pending[:cut])
                    pending = pending[cut:]
                yield pause
        finally:
            run.close()
        flush(pending + pipe.text())
        return status
