"""The virtual filesystem: errno-true errors, shared trees, live files."""

import errno

import pytest

from emulator.session import Session
from emulator.vfs import Dir, File, FileSystem, FsError


def test_errors_use_strerror_wording():
    fs = FileSystem(Dir({"f": File("x")}))
    with pytest.raises(FsError) as caught:
        fs.read("/nope")
    assert caught.value.errno == errno.ENOENT
    assert caught.value.message("cat") == "cat: /nope: No such file or directory"
    with pytest.raises(FsError, match="Not a directory"):
        fs.read("/f/x")
    with pytest.raises(FsError, match="Is a directory"):
        fs.read("/")


def test_relative_paths_resolve_from_cwd_and_report_as_typed():
    fs = FileSystem(Dir({"d": Dir({"f": File("hi")})}))
    fs.cwd = "/d"
    assert fs.read("f") == "hi"
    assert fs.read("../d/./f") == "hi"
    with pytest.raises(FsError, match="^g: No such"):
        fs.read("g")


def test_live_files_render_at_read_time():
    box = ["a"]
    fs = FileSystem(Dir({"f": File(lambda: box[0])}))
    assert fs.read("/f") == "a"
    box[0] = "b"
    assert fs.read("/f") == "b"


def test_home_is_shared_between_hosts_but_tmp_is_not():
    s = Session()
    s.execute("echo hi > ~/note; echo local > /tmp/x")
    assert s.execute("ssh node02 cat note") == ("hi\n", 0)
    assert s.execute("ssh node02 cat /tmp/x") == ("cat: /tmp/x: No such file or directory\n", 1)


def test_proc_and_sys_are_rendered_from_the_model():
    s = Session()
    assert s.execute("ssh node01 cat /sys/class/infiniband/mlx5_0/ports/1/rate") == ("400 Gb/sec (4X NDR)\n", 0)
    assert s.execute("ssh node01 cat /proc/driver/nvidia/version")[0].startswith(
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07")
    assert s.execute("cat /etc/hostname") == ("login01\n", 0)


def test_training_log_grows_with_the_clock():
    s = Session()
    before = s.execute("wc -l < /lustre/jobs/llm-pretrain/train.log")[0]
    s.execute("sleep 120")
    after = s.execute("wc -l < /lustre/jobs/llm-pretrain/train.log")[0]
    assert int(after) > int(before)
