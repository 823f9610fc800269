"""``ipmitool sdr`` and ``sensor``: the BMC's sensors read now.

Power and CPU heat follow the host's load; GPU temperatures are the ones NVML
reports (the BMC numbers GPUs from 1); host-side sensors read nothing while
main power is off.
"""

from __future__ import annotations

from emulator.cluster import telemetry
from emulator.cluster.hardware import Sensor
from emulator.cluster.model import Cluster, Node
from emulator.commands.kit.command import Context

#: SDR sensor type by unit, for ``sdr type`` and ``sensor get``.
SENSOR_TYPES = {"degrees C": "Temperature", "RPM": "Fan", "Watts": "Current", "Volts": "Voltage"}


def _reading(sensor: Sensor, powered: bool) -> float | None:
    """A sensor's value now: host-side sensors read nothing while main power is off."""
    if sensor.unit == "discrete":
        return None
    if not powered and not sensor.name.startswith("Inlet"):
        return None
    return sensor.reading


def _number(value: float) -> str:
    return f"{value:.0f}" if value == int(value) else f"{value:.2f}"


def _discrete_state(sensor: Sensor) -> str:
    return ", ".join(sensor.states)


def live_sensors(cluster: Cluster, node: Node) -> list[Sensor]:
    """The BMC's sensors read now: Total Power is the GPUs' draw plus the rest of the system, CPU heat
    follows the load, GPU temperatures are the ones NVML reports (the BMC numbers them from 1), and the
    redundancy sensor counts the supplies lost."""
    bmc = node.bmc
    assert bmc is not None
    busy = node.health.os_up and any(j.state == "RUNNING" and node.name in j.nodes for j in cluster.slurm.jobs)
    scale = {"CPU0 Temp": 1.0 if busy else 0.78, "CPU1 Temp": 1.0 if busy else 0.78}
    found: list[Sensor] = []
    for sensor in bmc.sensors:
        reading, status, states = sensor.reading, sensor.status, sensor.states
        if reading is not None and sensor.name in scale:
            reading = float(round(reading * scale[sensor.name]))
        if sensor.name == "Total Power":
            reading = float(round(telemetry.system_power_w(cluster, node)))
        if sensor.name == "PS Redundancy":
            states = (telemetry.psu_redundancy(node),)
            status = "ok" if states[0] == telemetry.FULLY_REDUNDANT else "cr"
        found.append(Sensor(sensor.name, reading, sensor.unit, status, sensor.entity, sensor.sensor_id, states))
        if sensor.name == "CPU1 Temp":
            for gpu in node.gpus:
                temp = float(telemetry.sample(cluster, node, gpu).temp_c) if gpu.present else None
                found.append(Sensor(f"GPU{gpu.index + 1} Temp", temp, "degrees C", "ok" if temp is not None else "ns",
                                    f"11.{gpu.index + 1}", f"0x{0x50 + gpu.index:02x}"))
    return found


def sdr(ctx: Context, node: Node, words: list[str]) -> int:
    """``sdr [list|elist [all|full|compact]]`` and ``sdr type [TYPE]``."""
    bmc = node.bmc
    assert bmc is not None
    sensors = live_sensors(ctx.cluster, node)
    mode = words[0] if words else "list"
    if mode == "type":
        if len(words) < 2:
            ctx.outln("Sensor Types:\n\tTemperature               (0x01)   Voltage                   (0x02)\n"
                      "\tCurrent                   (0x03)   Fan                       (0x04)\n"
                      "\tPower Supply              (0x08)   Processor                 (0x07)")
            return 0
        wanted = " ".join(words[1:]).lower()
        sensors = [s for s in sensors if _sensor_type(s).lower() == wanted]
        if not sensors and wanted not in ("temperature", "fan", "current", "voltage", "power supply"):
            raise ctx.fail(f"Invalid SDR type: {' '.join(words[1:])}")
        mode = "elist"
    elif mode not in ("list", "elist") or words[1:2] not in ([], ["all"], ["full"], ["compact"]):
        raise ctx.fail(f"Invalid SDR command: {' '.join(words)}")
    for sensor in sensors:
        value = _reading(sensor, bmc.power_on)
        status = sensor.status if value is not None or sensor.unit == "discrete" else "ns"
        if mode == "list":
            if sensor.unit == "discrete":
                shown = "0x02" if sensor.status == "cr" else "0x01"
            else:
                shown = "no reading" if value is None else f"{_number(value)} {sensor.unit}"
            ctx.outln(f"{sensor.name:<16} | {shown:<17} | {status}")
        else:
            if sensor.unit == "discrete":
                shown = _discrete_state(sensor)
            else:
                shown = "No Reading" if value is None else f"{_number(value)} {sensor.unit}"
            ctx.outln(f"{sensor.name:<16} | {int(sensor.sensor_id, 16):02X}h | {status:<3} | {sensor.entity:>4} | {shown}")
    return 0


def sensor(ctx: Context, node: Node, words: list[str]) -> int:
    """``sensor [list]`` (one line per sensor, with thresholds) and ``sensor get NAME...``."""
    bmc = node.bmc
    assert bmc is not None
    if words[:1] == ["get"]:
        return _sensor_get(ctx, live_sensors(ctx.cluster, node), words[1:], bmc.power_on)
    if words and words[0] != "list":
        raise ctx.fail(f"Invalid sensor command: {words[0]}")
    for reading in live_sensors(ctx.cluster, node):
        ctx.outln(_sensor_line(reading, bmc.power_on))
    return 0


def _sensor_get(ctx: Context, sensors: list[Sensor], names: list[str], powered: bool) -> int:
    """``sensor get NAME...``: one block per sensor, as ipmitool prints a sensor record."""
    if not names:
        raise ctx.fail("Not enough parameters given.")
    status = 0
    ctx.outln("Locating sensor record...")
    for name in names:
        sensor = next((x for x in sensors if x.name == name), None)
        if sensor is None:
            ctx.err(f"Sensor data record \"{name}\" not found!\n")
            status = 1
            continue
        ident = f"{sensor.name} ({int(sensor.sensor_id, 16):#x})"
        if sensor.unit == "discrete":
            states = [f"[{x}]" for x in sensor.states]
            ctx.outln(f"Sensor ID              : {ident}")
            ctx.outln(f" Entity ID             : {sensor.entity}")
            ctx.outln(" Sensor Type (Discrete): Power Supply")
            ctx.outln(" States Asserted       : Power Supply\n" + "\n".join(f"{'':25}{x}" for x in states))
            continue
        value = _reading(sensor, powered)
        ctx.outln(f"Sensor ID              : {ident}")
        ctx.outln(f" Entity ID             : {sensor.entity}")
        ctx.outln(f" Sensor Type (Threshold)  : {_sensor_type(sensor)}")
        if value is None:
            ctx.outln(" Sensor Reading        : No Reading")
        else:
            ctx.outln(f" Sensor Reading        : {_number(value)} (+/- 0) {sensor.unit}")
            ctx.outln(f" Status                : {sensor.status}")
    return status


def _sensor_type(sensor: Sensor) -> str:
    if sensor.unit == "discrete":
        return "Power Supply"
    return SENSOR_TYPES.get(sensor.unit, "Other")


def _sensor_line(sensor: Sensor, powered: bool) -> str:
    value = _reading(sensor, powered)
    if sensor.unit == "discrete":
        return (f"{sensor.name:<16} | {'0x2' if sensor.status == 'cr' else '0x1':<10} | {'discrete':<10} | "
                f"{'0x0300' if sensor.status == 'cr' else '0x0100':<6}| na        | na        | na        | "
                "na        | na        | na        ")
    shown = "na" if value is None else f"{value:.3f}"
    status = "na" if value is None else sensor.status
    limits = {"degrees C": ("na", "na", "na", "85.000", "90.000", "na"),
              "RPM": ("na", "600.000", "800.000", "na", "na", "na"),
              "Watts": ("na", "na", "na", "na", "na", "na")}.get(sensor.unit, ("na",) * 6)
    cols = "| ".join(f"{v:<10}" for v in limits)
    return f"{sensor.name:<16} | {shown:<10} | {sensor.unit:<10} | {status:<6}| {cols}"
