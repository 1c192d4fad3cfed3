"""The pure part of the sandbox hosts' driver: the command each actor starts on its node."""

from graph_planner_verl.sandbox_hosts import host_command


def test_the_host_reads_its_spec_from_standard_input_and_is_told_its_node_and_slots():
    command = host_command(["/usr/bin/node", "/opt/gp/dist/cli.js"], "abc123", 4, "127.0.0.1")
    assert command == ["/usr/bin/node", "/opt/gp/dist/cli.js", "sandbox", "host", "--spec", "-", "--node", "abc123", "--slots", "4", "--listen", "127.0.0.1"]
    # The spec (with the registry's token) never appears on a command line other processes can read.
    assert not any("token" in word for word in command)
