"""Many tables on one bot: Discord REST calls against the global rate limit, uploads, latency, stalls.

    python -m benchmarks.load [--tables 100] [--humans 1|4] [--game phom|chan|tusac|chinchon|concan|all]
                              [--ai easy|normal] [--ai-delay SECONDS] [--think 5]
                              [--seconds 60] [--seed 1]
                              [--database URL|postgres] [--processes K] [--profile FILE] [--text-only]
                              [--metrics]

N tables share one bot in one SimCord environment, each with 1 person and 3 AI seats
(``--humans 1``, the default) or 4 people (``--humans 4``), all of one game or, with
``--game all``, spread over the five games. The bot runs with the default configuration: the
AI seats wait ``ai_delay_seconds`` (1 s) before each move, in wall-clock time (``--ai-delay 0``
for the coalesced bursts of the tests); only the turn timers are set beyond the run. The AI
seats play at ``--ai``'s level (``/<game> new ai:``; default normal).

Every person behaves like a user: after an exponential think time (mean ``--think`` seconds)
he clicks **Quick Select**, thinks again and clicks the move button it lit (a hand without Quick
Select, e.g. Chinchón's draw or buy-back, gets the lit move at once); he clicks **Next round**
on a round's result, and when his game ends the host clicks **Rematch** and **Start**. Clicks are
emitted straight into the simulated gateway, so nothing waits for the simulator to settle
while measuring: the people click concurrently, as on a real server.

Every REST call goes through SimCord's ``router.dispatch`` and is counted by route, as
**globally limited** (posts, edits and deletes of channel and DM messages, threads, DM
channels: everything Discord counts against the 50 requests/s of a bot token) or
**interaction** traffic (``POST /interactions/:id/:token/callback`` and the interaction webhook
``/webhooks/:id/:token/...``, limited per interaction, not globally). Uploaded attachments are
measured too. A *human move* is a click on a move button (not Quick Select, Next round,
Rematch or Start).

Printed: globally limited calls per table-minute and per human move, interaction calls apart,
KB uploaded per human move, the tables one token can carry at 100 % and 80 % of 50 calls/s,
click-to-done latency (from the click until the bot has finished handling it: its answer,
message edits and any refusal have reached Discord) p50/p95/p99/max, the AI pauses as they
really lasted and how far all the bot's timed pauses overslept (a WARNING when the simulator,
not the bot, could not keep up), the longest event-loop stall (gap of a 1 ms heartbeat), garbage-collector
pauses, process CPU, the routes, games settled; and, after the clicks stop and the bot has
drained, tables stuck (game over but not finished) and games over but unsettled — both must be 0.
``--text-only`` runs the tables without their picture: the difference is what the pictures cost.
``--metrics`` turns the bot's metrics on (``metrics_port``) and scrapes ``/metrics`` and
``/healthz`` every 15 s, as Prometheus and a healthcheck would: compared with a run without it,
what the metrics cost per click.

``--processes K`` (PostgreSQL only) shares the tables among K processes of this script, as the
shards of one bot share them: each runs its own bot in its own simulated Discord (their ids kept
apart), all on one database (the throwaway server's, or the URL's), so leases, fenced writes
and settlements all go through it; they measure the same window, and one report merges their
figures (CPU per process; the database server's is not counted). One simulated Discord per
process also splits the simulator's own cost, which grows faster than the number of tables.
No process lets its tables go before every process has stopped driving its own: a table whose
server is in another process's simulated Discord must not be adopted. For the same reason a
database given with ``--database`` must hold no table yet.

The parts: :mod:`.run` (one process's run), :mod:`.processes` (``--processes``),
:mod:`.people` (the simulated people and the lobbies they open), :mod:`.meters` (what is
measured, and how: from outside the bot or at its public entries),
:mod:`.tables` (the bot's tables seen from outside: work in flight, the drain, settlements),
:mod:`.report`, :mod:`.figures` (one process's figures, merged), :mod:`.routes` (the REST
routes as Discord's global limit counts them); ``__main__`` reads the command line.
"""
