"""The everyday commands a shell session leans on: echo and printf, identity and uptime, date and timing, the environment, test, and ping.

A tool family: it imports the model (``emulator.cluster``, ``emulator.hostfs``,
``emulator.vfs``) and the shared kit (``emulator.commands.kit``), never another
family, the registry or the shell.
"""

from __future__ import annotations

from emulator.commands.basics import clock, echo, env, identity, ping, status
from emulator.commands.kit.command import Command

__all__ = ["commands"]


def commands() -> list[Command]:
    """Every command of the family, for the registry."""
    return [echo.Echo(), echo.Printf(), identity.Hostname(), identity.Whoami(), identity.Nproc(), identity.Id(),
            identity.Uname(), identity.Uptime(), clock.Date(), env.Pwd(), env.Env(), env.Clear(), status.TrueCommand(),
            status.FalseCommand(), status.Test(), ping.Ping(), clock.Sleep(), clock.Watch(), env.Printenv(), env.Sudo(),
            clock.Timeout()]
