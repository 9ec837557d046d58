-- A replay schedules a delivery again without renumbering its attempts: attempts carry
-- on from where they were, and the retry schedule starts over from the attempt count
-- at the replay (schedule_base), so a replayed delivery gets the whole schedule again.
alter table deliveries add column schedule_base int not null default 0;
