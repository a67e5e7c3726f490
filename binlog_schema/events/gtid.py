"""(being written)"""

BODIES: dict = {}
