"""The help texts nvidia-smi prints (driver 550): ``-h`` and each sub-command's ``-h``.

Copies of the real tool's pages, abridged as recorded: ``man nvidia-smi`` and
``nvidia-smi -h`` print :data:`HELP`. The flags the command accepts are
declared in :mod:`emulator.commands.nvsmi.options`; a test checks that every
flag of its ``LISTED`` table appears here and none of its ``ABRIDGED`` one.
"""

from __future__ import annotations

HELP = """\
NVIDIA System Management Interface -- v{driver}

NVSMI provides monitoring information for Tesla and select Quadro devices.
The data is presented in either a plain text or an XML format, via stdout or a file.
NVSMI also provides several management operations for changing the device state.

Note that the functionality of NVSMI is exposed through the NVML C-based
library. See the NVIDIA developer website for more information about NVML.
Python wrappers to NVML are also available.  The output of NVSMI is
not guaranteed to be backwards compatible; NVML and the bindings are backwards
compatible.

Supported products:
- Full Support
    - All Tesla products, starting with the Kepler architecture
    - All Quadro products, starting with the Kepler architecture
    - All GRID products, starting with the Kepler architecture
    - GeForce Titan products, starting with the Kepler architecture
- Limited Support
    - All Geforce products, starting with the Kepler architecture
nvidia-smi [OPTION1 [ARG1]] [OPTION2 [ARG2]] ...

    -h,   --help                Print usage information and exit.

  LIST OPTIONS:

    -L,   --list-gpus           Display a list of GPUs connected to the system.

  SUMMARY OPTIONS:

    <no arguments>              Show a summary of GPUs connected to the system.

    [plus any of]

    -i,   --id=                 Target a specific GPU.
    -l,   --loop=               Probe until Ctrl+C at specified second interval.

  QUERY OPTIONS:

    -q,   --query               Display GPU or Unit info.

    [plus any of]

    -i,   --id=                 Target a specific GPU or Unit.
    -x,   --xml-format          Produce XML output.
    -d,   --display=            Display only selected information: MEMORY,
                                    UTILIZATION, ECC, TEMPERATURE, POWER, CLOCK,
                                    COMPUTE, PIDS, PERFORMANCE, SUPPORTED_CLOCKS,
                                    PAGE_RETIREMENT, ACCOUNTING, ENCODER_STATS,
                                    SUPPORTED_GPU_TARGET_TEMP, VOLTAGE, FBC_STATS
                                    ROW_REMAPPER, RESET_STATUS, GSP_FIRMWARE_VERSION
                                Flags can be combined with comma e.g. ECC,POWER.
                                Sampling data with max/min/avg is also returned
                                for POWER, UTILIZATION and CLOCK display types.
                                Doesn't work with -u or -x flags.
    -l,   --loop=               Probe until Ctrl+C at specified second interval.
    -lms, --loop-ms=            Probe until Ctrl+C at specified millisecond interval.

  SELECTIVE QUERY OPTIONS:

    Allows the caller to pass an explicit list of properties to query.

    [one of]

    --query-gpu                 Information about GPU.
                                Call --help-query-gpu for more info.

    [mandatory]

    --format=                   Comma separated list of format options:
                                  csv - comma separated values (MANDATORY)
                                  noheader - skip the first line with column headers
                                  nounits - don't print units for numerical
                                             values

    [plus any of]

    -i,   --id=                 Target a specific GPU or Unit.
    -l,   --loop=               Probe until Ctrl+C at specified second interval.
    -lms, --loop-ms=            Probe until Ctrl+C at specified millisecond interval.

    topo                        Displays device/system topology. "nvidia-smi topo -h" for more information.
    nvlink                      Displays device nvlink information. "nvidia-smi nvlink -h" for more information.
    dmon                        Displays device stats in scrolling format.
                                "nvidia-smi dmon -h" for more information.
    pmon                        Displays process stats in scrolling format.
                                "nvidia-smi pmon -h" for more information.

Please see the nvidia-smi(1) manual page for more detailed information.
"""

TOPO_HELP = """\
    topo -- Display topological information about the system.

    Usage: nvidia-smi topo [options]

    Options include:
    [-m | --matrix]: Display the GPUDirect communication matrix for the system.
    [-mp | --matrix_pci]: Display the GPUDirect communication matrix for the system (PCI Only).
    [-p2p | --p2pstatus]: Displays the p2p status between the GPUs of a given p2p capability
                   r - p2p read capabiity
                   w - p2p write capability
                   n - p2p nvlink capability
                   a - p2p atomics capability
                   p - p2p pcie capability
    [-h | --help]: Display help information
"""

NVLINK_HELP = """\
    nvlink -- Display NvLink information.

    Usage: nvidia-smi nvlink [options]

    Options include:
    [-h | --help]: Display help information
    [-i | --id]: Enumeration index, PCI bus ID or UUID.

    [-l | --link]: Limit a command to a specific link.  Without this flag, all link information is displayed.
    [-s | --status]: Display link state (active/inactive).
    [-c | --capabilities]: Display link capabilities.
    [-e | --errorcounters]: Display error counters for links.
    [-gt | --getthroughput]: Display link throughput counters for specified type
                             Type can be one of the following:
                                  d - Data throughput in KiB
                                  r - Raw throughput in KiB
"""

DMON_HELP = """\
    dmon -- Device monitoring.

    Usage: nvidia-smi dmon [options]

    Options include:
    [-i | --id]:          Comma separated Enumeration index, PCI bus ID or UUID
    [-d | --delay]:       Collection delay/interval in seconds [default=1sec]
    [-c | --count]:       Collect specified number of samples and exit
    [-s | --select]:      One or more metrics [default=puc]
                          Can be any of the following:
                              p - Power Usage and Temperature
                              u - Utilization
                              c - Proc and Mem Clocks
                              v - Power and Thermal Violations
                              m - FB, Bar1 and CC Protected Memory
                              e - ECC Errors and PCIe Replay errors
                              t - PCIe Rx and Tx Throughput
    [-o | --options]:     One or more from the following:
                              D - Include Date (YYYYMMDD) in scrolling output
                              T - Include Time (HH:MM:SS) in scrolling output
    [-h | --help]:        Display help information
"""

PMON_HELP = """\
    pmon -- Process monitoring.

    Usage: nvidia-smi pmon [options]

    Options include:
    [-i | --id]:          Comma separated Enumeration index, PCI bus ID or UUID
    [-d | --delay]:       Collection delay/interval in seconds [default=1sec, max=10secs]
    [-c | --count]:       Collect specified number of samples and exit
    [-h | --help]:        Display help information
"""


#: Each sub-command's ``-h`` page.
SUBCOMMAND_HELP = {"topo": TOPO_HELP, "nvlink": NVLINK_HELP, "dmon": DMON_HELP, "pmon": PMON_HELP}
