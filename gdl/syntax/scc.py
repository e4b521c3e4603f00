"""Strongly connected components of a graph of numbered nodes (Tarjan, iterative).

Used for the rules' dependency graph (`ggp.gdl.syntax.strata`) and for the ground
network (`ggp.gdl.network.formulas`), which can have hundreds of thousands of nodes:
hence plain lists indexed by node number and no recursion.
"""

from __future__ import annotations

from collections.abc import Sequence


def strongly_connected_components(successors: Sequence[Sequence[int]]) -> list[list[int]]:
    """The components of the graph whose node i points to `successors[i]`.

    A component comes after every component it points to (with edges from a
    rule's head to its body, that is evaluation order); each component's
    nodes are sorted.  Roots are visited in node order and successors in the
    order given, so the result depends only on the graph as numbered.
    """
    count = len(successors)
    index = [-1] * count
    low = [0] * count
    on_stack = [False] * count
    stack: list[int] = []
    counter = 0
    components: list[list[int]] = []
    for root in range(count):
        if index[root] != -1:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        work = [(root, 0)]
        while work:
            node, position = work[-1]
            if position < len(successors[node]):
                work[-1] = (node, position + 1)
                child = successors[node][position]
                if index[child] == -1:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack[child] = True
                    work.append((child, 0))
                elif on_stack[child]:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component.append(member)
                    if member == node:
                        break
                component.sort()
                components.append(component)
    return components
