create table items (id serial primary key, name text not null);
