alter table no_such_table add column x int;
