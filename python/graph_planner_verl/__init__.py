"""Graph Planner's Verl adapter: an agent loop that runs each sample as an episode of our environment
service (started by ``gp train``), and the smoke run that checks an installation on CPU.

The text protocol (parsing replies, rendering observations, rewards) lives in the service; this
package only moves tokens and text between Verl and it. See docs/trainer-bridge.md.
"""

__all__ = ["__version__"]
__version__ = "0.1.0"
