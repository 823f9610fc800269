"""``sbatch``: submit a batch script.

``sbatch`` reads the script from the virtual filesystem, honours its
``#SBATCH`` lines (the command line wins), and runs the script on the first
node (:mod:`emulator.commands.slurm.batch_script`), writing its output to
``slurm-<jobid>.out``; the job then shows as running for a short simulated
while before it completes.
"""

from __future__ import annotations

import argparse
import posixpath
import shlex
from typing import Any

from emulator.cluster.scheduler import Job
from emulator.commands.kit.command import Command, Context, Outcome
from emulator.commands.slurm import batch_script
from emulator.commands.slurm import common as sc
from emulator.commands.slurm.allocation import Request, job_options, new_job, start, task_env
from emulator.vfs import FsError

#: Seconds a batch job stays running after its command lines ran.
BATCH_RUNTIME_S = 30.0


class Sbatch(sc.SlurmCommand):
    name = "sbatch"
    summary = "submit a batch script to Slurm"
    notes = ("#SBATCH lines in the script are read as options; options on the command line win. "
             "The script's plain command lines run on the first allocated node.")

    def configure(self, parser: Any) -> None:
        job_options(parser)
        parser.add_argument("-o", "--output", metavar="FILE", help="stdout file (%%j = job id)")
        parser.add_argument("-e", "--error", metavar="FILE", help="stderr file")
        parser.add_argument("-D", "--chdir", metavar="DIR", help="working directory of the job")
        parser.add_argument("--wrap", metavar="COMMAND", help="wrap a command line in a script")
        parser.add_argument("--parsable", action="store_true", help="print only the job id")
        parser.add_argument("-H", "--hold", action="store_true", help="submit in held state")
        parser.add_argument("-d", "--dependency", metavar="LIST", help="start after these jobs")
        parser.add_argument("--requeue", dest="requeue", action="store_const", const="yes",
                            help="permit the job to be requeued")
        parser.add_argument("--no-requeue", dest="requeue", action="store_const", const="no",
                            help="never requeue the job (JobRequeue=0 makes this the default here)")
        parser.add_argument("script", nargs="?", metavar="SCRIPT", help="batch script")
        parser.add_argument("script_args", nargs=argparse.REMAINDER, metavar="ARGS", help="script arguments")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        if args.wrap is not None:
            text, path = f"#!/bin/sh\n# This script was created by sbatch --wrap.\n\n{args.wrap}\n", "wrap"
        elif args.script:
            path = args.script
            try:
                text = ctx.fs.read(path)
            except FsError:
                raise ctx.fail(f"sbatch: error: Unable to open file {path}") from None
        else:
            raise ctx.fail("sbatch: error: Batch script is empty!\n"
                           "sbatch: error: reading a script from standard input is not supported here")
        if not text.startswith("#!"):
            raise ctx.fail("sbatch: error: This does not look like a batch script.  The first\n"
                           "sbatch: error: line must start with #! followed by the path to an interpreter.\n"
                           "sbatch: error: For instance: #!/bin/sh")
        merged = self._merge(ctx, text, args)
        req = Request(ctx, "sbatch", merged)
        cluster = ctx.cluster
        name = merged.job_name or ("wrap" if args.wrap is not None else posixpath.basename(path))
        command = "(null)" if args.wrap is not None else ctx.fs.abspath(path)
        job = new_job(ctx, req, name, "PENDING", command)
        job.requeue = merged.requeue == "yes"   # slurm.conf JobRequeue=0: not requeueable unless asked
        workdir = ctx.fs.abspath(merged.chdir) if merged.chdir else ctx.cwd
        job.workdir = workdir
        job.stdout = posixpath.join(workdir, (merged.output or "slurm-%j.out").replace("%j", str(job.job_id))
                                    .replace("%x", name).replace("%u", job.user))
        if merged.hold or merged.dependency:
            job.reason = "JobHeldUser" if merged.hold else "Dependency"
        else:
            chosen = req.pick(cluster)
            if chosen is not None:
                start(cluster, job, chosen)
                job.steps = [("batch", "RUNNING", "0:0"), ("extern", "RUNNING", "0:0")]
                self._run_script(ctx, job, text)
        ctx.outln(str(job.job_id) if merged.parsable else f"Submitted batch job {job.job_id}")
        return 0

    def _merge(self, ctx: Context, text: str, args: argparse.Namespace) -> argparse.Namespace:
        """Options from ``#SBATCH`` lines, overridden by the command line."""
        words: list[str] = []
        for line in text.splitlines()[1:]:
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                break
            if stripped.startswith("#SBATCH"):
                try:
                    words += shlex.split(stripped[len("#SBATCH"):], comments=True)
                except ValueError:
                    continue
        from_script = self.parse(words) if words else self.parse([])
        for key, value in vars(args).items():
            default = self.parser().get_default(key)
            if value not in (None, False, []) and value != default:
                setattr(from_script, key, value)
        return from_script

    def _run_script(self, ctx: Context, job: Job, text: str) -> None:
        """Run the script on the batch host and write its output file; the job ends a little later."""
        cluster = ctx.cluster
        host = cluster.nodes[job.nodes[0]]
        env = {**task_env(cluster, job, job.nodes, job.num_nodes * job.ntasks_per_node, 0, 0, 0),
               "SLURM_SUBMIT_DIR": ctx.cwd}
        env.pop("SLURM_PROCID")
        output, status = batch_script.run(ctx, host, text, env, f"/var/spool/slurmd/job{job.job_id}/slurm_script")
        try:
            ctx.fs.write(job.stdout, output)
        except FsError as exc:
            ctx.err(f"sbatch: error: {exc}\n")
        end = ctx.clock.elapsed + BATCH_RUNTIME_S
        cluster.clock.schedule(end, lambda: sc.finish_job(cluster, job, status, end))


def commands() -> list[Command]:
    return [Sbatch()]
