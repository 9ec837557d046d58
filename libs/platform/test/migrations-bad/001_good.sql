create table things (id serial primary key);
